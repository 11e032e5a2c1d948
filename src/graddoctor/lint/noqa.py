"""Inline suppression: `# noqa` silences every code on its line, `# noqa: GD101, GD2` the ones named."""

from __future__ import annotations

import re

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]*(?:[\s,]+[A-Za-z]+[0-9]*)*))?", re.I)


def suppressed(lines: list[str], line: int, code: str) -> bool:
    if not 0 < line <= len(lines):
        return False
    text = lines[line - 1]
    if "noqa" not in text and "NOQA" not in text:
        return False
    for match in _NOQA.finditer(text):
        codes = match.group("codes")
        if not codes:
            return True
        if any(code.upper().startswith(c.upper()) for c in re.split(r"[\s,]+", codes.strip())):
            return True
    return False
