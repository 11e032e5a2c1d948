"""Lint output: text (with the source line, a caret and the fix), GitHub annotations, SARIF 2.1.0."""

from __future__ import annotations

import json
from pathlib import Path

from graddoctor.finding import Finding, Severity
from graddoctor.rules import get_rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
HELP_URI = "https://github.com/graddoctor/graddoctor/blob/main/docs/rules.md#{code}"


def _line(cache: dict[str, list[str]], path: str | None, line: int | None) -> str | None:
    if not path or not line:
        return None
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            cache[path] = []
    lines = cache[path]
    return lines[line - 1] if 0 < line <= len(lines) else None


def text(findings: list[Finding], files: int, sources: dict[str, list[str]] | None = None) -> str:
    cache: dict[str, list[str]] = dict(sources or {})
    out: list[str] = []
    for f in findings:
        where = f"{f.file}:{f.line or 1}:{f.column or 1}"
        out.append(f"{where}: {f.code} {f.message}")
        src = _line(cache, f.file, f.line)
        if src is not None and f.code != "GD000":
            number = str(f.line)
            pad = " " * len(number)
            shown = src.replace("\t", " ")  # one column per character keeps the caret under it
            out.append(f"  {number} | {shown}")
            caret_at = max(0, (f.column or 1) - 1)
            out.append(f"  {pad} | {' ' * caret_at}^")
        for r in f.related:
            out.append(f"  note: {r.file}:{r.line}: {r.note}")
        out.append(f"  fix: {f.hint}")
        out.append("")
    out.append(summary(findings, files))
    return "\n".join(out) + "\n"


def summary(findings: list[Finding], files: int) -> str:
    noun = "file" if files == 1 else "files"
    if not findings:
        return f"No problems found in {files} {noun}."
    counts = {s: sum(1 for f in findings if f.severity == s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)}
    parts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n]
    total = len(findings)
    return f"Found {total} problem{'s' if total != 1 else ''} ({', '.join(parts)}) in {files} {noun}."


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github(findings: list[Finding]) -> str:
    """GitHub Actions workflow commands: one `::error file=..,line=..,col=..::msg` line per finding."""
    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
    lines = []
    for f in findings:
        props = [f"file={_escape_prop(f.file or '')}"]
        if f.line:
            props.append(f"line={f.line}")
        if f.column:
            props.append(f"col={f.column}")
        props.append(f"title={_escape_prop(f'{f.code} {f.name}')}")
        lines.append(f"::{level[f.severity]} {','.join(props)}::{_escape_data(f'{f.code} {f.message} Fix: {f.hint}')}")
    return "\n".join(lines) + ("\n" if lines else "")


def sarif(findings: list[Finding]) -> str:
    """A SARIF 2.1.0 log with one run; rules carry the catalogue's name, summary and fix."""
    from graddoctor._version import __version__

    level = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
    codes = sorted({f.code for f in findings})
    index = {code: i for i, code in enumerate(codes)}
    rules = []
    for code in codes:
        rule = get_rule(code)
        rules.append(
            {
                "id": code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary or rule.name},
                "fullDescription": {"text": rule.section("Why is this bad?") or rule.summary or rule.name},
                "help": {"text": rule.hint},
                "helpUri": HELP_URI.format(code=code.lower()),
                "defaultConfiguration": {"level": level[rule.severity]},
            }
        )
    results = []
    for f in findings:
        location: dict = {"physicalLocation": {"artifactLocation": {"uri": _uri(f.file)}}}
        if f.line:
            location["physicalLocation"]["region"] = {"startLine": f.line, "startColumn": f.column or 1}
        result = {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": level[f.severity],
            "message": {"text": f"{f.message} Fix: {f.hint}"},
            "locations": [location],
        }
        related = [
            {
                "id": i,
                "physicalLocation": {"artifactLocation": {"uri": _uri(r.file)}, "region": {"startLine": r.line}},
                "message": {"text": r.note},
            }
            for i, r in enumerate(f.related)
            if r.line
        ]
        if related:
            result["relatedLocations"] = related
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "graddoctor",
                        "version": __version__,
                        "informationUri": "https://github.com/graddoctor/graddoctor",
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


def _uri(path: str | None) -> str:
    # A URI reference: `#`, `?`, `%` and spaces in a file name must be escaped, or a reader cuts the path there.
    from urllib.parse import quote

    return quote(Path(path or "").as_posix(), safe="/")
