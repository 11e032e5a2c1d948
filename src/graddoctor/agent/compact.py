"""The compact JSON an agent reads: only the findings, each with file:line, evidence and edit.

It says in one sentence what was found, and plainly when nothing was: an agent must not
have to infer "clean" from an empty list.
"""

from __future__ import annotations

from typing import Any

SCHEMA = "graddoctor.compact/1"


def compact(report: dict[str, Any], exit_code: int | None = None) -> dict[str, Any]:
    """The compact form of a `graddoctor.report/1` document."""
    findings = [_finding(f) for f in report.get("findings", [])]
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "command": report.get("command"),
        "target": report.get("target"),
        "summary": _summary(report, findings),
        "findings": findings,
    }
    if exit_code is not None:
        out["exit_code"] = exit_code
    if report.get("exception"):
        out["exception"] = report["exception"]
    return out


def _finding(f: dict[str, Any]) -> dict[str, Any]:
    where = f"{f['file']}:{f['line']}" if f.get("file") and f.get("line") else f.get("file")
    edit = f.get("fix") or None
    return {
        "where": where,
        "code": f["code"],
        "severity": f["severity"],
        "message": f["message"],
        "hint": f["hint"],
        "evidence": f.get("evidence") or {},
        "edit": {"diff": edit["diff"], "verified": edit.get("verified")} if edit else None,
    }


def _summary(report: dict[str, Any], findings: list[dict[str, Any]]) -> str:
    if report.get("command") == "explain":
        if not findings:
            return "graddoctor did not recognise this error message."
        return f"graddoctor recognised the error: {', '.join(f['code'] for f in findings)} (see hint)."
    target = report.get("target")
    named = " ".join(target) if isinstance(target, list) else (target or "the input")
    if not findings:
        crashed = " (the script raised: see exception)" if report.get("exception") else ""
        return f"graddoctor found nothing in {named}{crashed}."
    counts: dict[str, int] = {}
    for f in findings:
        counts[f["severity"]] = counts.get(f["severity"], 0) + 1
    parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}" for s in ("error", "warning", "info") if s in counts]
    edits = sum(1 for f in findings if f["edit"])
    with_edits = f"; {edits} with an edit" if edits else ""
    return f"graddoctor found {len(findings)} problem{'s' if len(findings) != 1 else ''} in {named}: {', '.join(parts)}{with_edits}."
