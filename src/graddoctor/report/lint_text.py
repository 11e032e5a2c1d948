"""Lint's text output: each finding with its source line, a caret and the fix, then one summary line."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.report.source import SourceLines
from graddoctor.report.summary import applies, counts_text


def text(findings: list[Finding], files: int, sources: dict[str, list[str]] | None = None) -> str:
    """Each finding with its source line, a caret under the column and the fix; then the summary."""
    reader = SourceLines(sources)
    out: list[str] = []
    for f in findings:
        where = f"{f.file}:{f.line or 1}:{f.column or 1}"
        out.append(f"{where}: {f.code} {f.message}")
        src = reader.line(f.file, f.line)
        if src is not None and f.code != "GD000":
            number = str(f.line)
            pad = " " * len(number)
            shown = src.replace("\t", " ")  # one column per character keeps the caret under it
            out.append(f"  {number} | {shown}")
            caret_at = max(0, (f.column or 1) - 1)
            out.append(f"  {pad} | {' ' * caret_at}^")
        for r in f.related:
            out.append(f"  note: {r.file}:{r.line}: {r.note}")
        out.append(f"  hint: {f.hint}")
        if f.edit:
            out.append(f"  edit: {applies(f.edit)}")
        out.append("")
    out.append(summary(findings, files))
    return "\n".join(out) + "\n"


def summary(findings: list[Finding], files: int) -> str:
    """"Found 3 problems (1 error, 2 warnings) in 4 files." or "No problems found in 4 files." """
    noun = "file" if files == 1 else "files"
    if not findings:
        return f"No problems found in {files} {noun}."
    total = len(findings)
    return f"Found {total} problem{'s' if total != 1 else ''} ({counts_text(findings)}) in {files} {noun}."
