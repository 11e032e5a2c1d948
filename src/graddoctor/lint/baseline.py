"""`lint --baseline FILE`: record today's findings once, then report only the ones that are new.

The file holds each finding's fingerprint (report/fingerprint.py: code, path, the text of the
line, occurrence), so editing code above a recorded finding does not make it new again. Paths
are taken relative to the baseline's folder, so lint may run from anywhere.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from graddoctor.finding import Finding
from graddoctor.report.fingerprint import fingerprints

SCHEMA = "graddoctor.baseline/1"


class BaselineError(Exception):
    """A baseline file that cannot be read (exit code 2)."""


def write(path: Path, findings: list[Finding]) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    entries = [
        {"code": f.code, "file": _shown(f.file, folder), "line": f.line, "fingerprint": fp, "message": f.message}
        for f, fp in zip(findings, fingerprints(findings, folder))
    ]
    path.write_text(json.dumps({"schema": SCHEMA, "findings": entries}, indent=2) + "\n", encoding="utf-8")


def new_findings(path: Path, findings: list[Finding]) -> list[Finding]:
    """The findings whose fingerprint the baseline does not hold."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        known = {entry["fingerprint"] for entry in data["findings"]}
        if data.get("schema") != SCHEMA:
            raise ValueError(f"its schema is {data.get('schema')!r}, not {SCHEMA!r}")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BaselineError(f"cannot read the baseline {path}: {exc}") from None
    folder = os.path.dirname(os.path.abspath(path))
    return [f for f, fp in zip(findings, fingerprints(findings, folder)) if fp not in known]


def _shown(file: str | None, folder: str) -> str | None:
    return Path(os.path.relpath(os.path.abspath(file), folder)).as_posix() if file else None
