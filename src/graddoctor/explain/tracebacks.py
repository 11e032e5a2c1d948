"""Read a traceback given as text: the exception and the user's innermost line."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graddoctor.locate import Location, is_user_file

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)', re.M)
_EXC = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(?:Error|Exception|Warning|Interrupt|Exit)|[A-Za-z_][\w.]*Error)(?::\s?(?P<msg>.*))?$")


@dataclass
class ParsedTraceback:
    exc_type: str | None
    message: str
    frames: list[Location]

    @property
    def user_location(self) -> Location | None:
        users = [f for f in self.frames if is_user_file(f.file)]
        return users[-1] if users else None


def parse(text: str) -> ParsedTraceback:
    """Split a traceback (or a bare message) into exception type, message and frames."""
    frames = [Location(m["file"], int(m["line"]), None, m["func"]) for m in _FRAME.finditer(text)]
    lines = text.rstrip().splitlines()
    exc_type, message = None, text.strip()
    if frames or "Traceback (most recent call last)" in text:
        # The exception line is the last line that looks like "Type: message"; what
        # follows it belongs to the message (PyTorch's hints run over several lines).
        for i in range(len(lines) - 1, -1, -1):
            found = _EXC.match(lines[i].strip())
            if found and not lines[i].startswith(" "):
                exc_type = found["type"]
                message = "\n".join([found["msg"] or ""] + lines[i + 1 :]).strip()
                break
    else:
        found = _EXC.match(lines[0].strip()) if lines else None
        if found and found["msg"] is not None:
            exc_type = found["type"]
            message = "\n".join([found["msg"]] + lines[1:]).strip()
    return ParsedTraceback(exc_type, message, frames)
