"""A finding's fingerprint: the same finding keeps it when lines are added or removed above it.

It hashes what the finding is about, never where it is: the code, the file's path, the text of
its line with whitespace normalised, and which occurrence of that same (code, file, text) it is,
counted from the top of the file. SARIF's `partialFingerprints` and `lint --baseline` use it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from graddoctor.finding import Finding

MAX_BYTES = 20 * 1024 * 1024  # lint's own limit for a source file
KEY = "graddoctor/v1"  # the partialFingerprints key; a new recipe gets a new version


def fingerprints(findings: list[Finding], relative_to: str | None = None) -> list[str]:
    """One fingerprint per finding, in the order given. The path hashed is the finding's as given, or
    relative to the folder `relative_to` (a baseline's), so that linting from another folder matches."""
    lines = _Lines()
    bases = [_base(f, lines, relative_to) for f in findings]
    order = sorted(range(len(findings)), key=lambda i: (findings[i].line or 0, findings[i].column or 0, i))
    seen: dict[str, int] = {}
    out = [""] * len(findings)
    for i in order:
        n = seen.get(bases[i], 0)
        seen[bases[i]] = n + 1
        out[i] = hashlib.sha256(f"{bases[i]}\0{n}".encode()).hexdigest()[:32]
    return out


def _base(finding: Finding, lines: "_Lines", relative_to: str | None) -> str:
    path = finding.file or ""
    if path and relative_to is not None:
        path = os.path.relpath(os.path.abspath(path), relative_to)
    path = Path(path).as_posix() if path else ""
    text = lines.get(finding.file, finding.line)
    return "\0".join((finding.code, path, " ".join(text.split())))


class _Lines:
    """Each file's lines, read once (a file that cannot be read gives empty lines)."""

    def __init__(self) -> None:
        self.files: dict[str, list[str]] = {}

    def get(self, file: str | None, line: int | None) -> str:
        if not file or not line:
            return ""
        if file not in self.files:
            self.files[file] = _read(file)
        text = self.files[file]
        return text[line - 1] if 0 < line <= len(text) else ""


def _read(file: str) -> list[str]:
    """The lines of a regular source file; none for anything else (a device, a pipe, a huge or missing file)."""
    try:
        info = os.stat(file)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return []
        return Path(file).read_text(encoding="utf-8", errors="replace").splitlines()
    except (OSError, ValueError):  # ValueError: a name with a NUL byte
        return []
