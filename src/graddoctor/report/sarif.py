"""A SARIF 2.1.0 log: rules carry the catalogue's name, summary and fix."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from graddoctor.finding import Finding, Severity
from graddoctor.rules import get_rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
HELP_URI = "https://github.com/graddoctor/graddoctor/blob/main/docs/rules.md#{code}"


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
    return quote(Path(path or "").as_posix(), safe="/")
