"""GitHub Actions workflow commands: one annotation line per finding."""

from __future__ import annotations

from graddoctor.finding import Finding, Severity


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


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(value: str) -> str:
    return _escape_data(value).replace(":", "%3A").replace(",", "%2C")
