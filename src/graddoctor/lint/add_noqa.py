"""`lint --add-noqa`: put `# noqa: CODE` on the line of each finding, keeping what the line says.

An existing `# noqa: X` gets the code added to its list; any other comment stays and the noqa
comment follows it. A line whose end is inside a multi-line string or continued with a
backslash cannot carry a comment: it is left alone and named, and a file that would no
longer parse is not written.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections import defaultdict
from pathlib import Path

from graddoctor.finding import Finding

_NOQA_LIST = re.compile(r"(#\s*noqa:\s*[A-Za-z][A-Za-z0-9_-]*(?:[\s,]+[A-Za-z][A-Za-z0-9_-]*)*)", re.I)
_BARE = re.compile(r"#\s*noqa(?!:)", re.I)
# Not codes a comment can silence: an unreadable file, and the unused-noqa report itself.
_NOT_SILENCED = ("GD000", "GD001")


def add_noqa(findings: list[Finding]) -> tuple[int, list[str]]:
    """Edit the files in place; returns (comments added or extended, lines that could not take one)."""
    wanted: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for f in findings:
        if f.file and f.line and f.code not in _NOT_SILENCED and f.code not in wanted[f.file][f.line]:
            wanted[f.file][f.line].append(f.code)
    added, refused = 0, []
    for file, by_line in wanted.items():
        path = Path(file)
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines(keepends=True)
        blocked = _lines_without_room(source)
        for line, codes in sorted(by_line.items()):
            if line in blocked or line > len(lines):
                refused.append(f"{file}:{line}")
                continue
            new = _with_codes(lines[line - 1], sorted(codes))
            if new != lines[line - 1]:
                lines[line - 1] = new
                added += 1
        after = "".join(lines)
        if after == source:
            continue
        try:
            ast.parse(after)
        except SyntaxError:  # never write a file we would break
            refused.extend(f"{file}:{line}" for line in by_line)
            continue
        path.write_text(after, encoding="utf-8")
    return added, refused


def _with_codes(text: str, codes: list[str]) -> str:
    body = text.rstrip("\r\n")
    end = text[len(body):]
    if _BARE.search(body):
        return text  # a bare `# noqa` silences everything already
    existing = _NOQA_LIST.search(body)
    if existing:
        listed = {c.upper() for c in re.split(r"[\s,]+", existing.group(1).split(":", 1)[1].strip())}
        extra = [c for c in codes if c.upper() not in listed]
        if not extra:
            return text
        return body[: existing.end()] + ", " + ", ".join(extra) + body[existing.end():] + end
    return body.rstrip() + "  # noqa: " + ", ".join(codes) + end


def _lines_without_room(source: str) -> set[int]:
    """Lines whose end is inside a token that goes on (a triple-quoted string) or that continue with `\\`."""
    blocked = {i for i, line in enumerate(source.splitlines(), 1) if line.rstrip().endswith("\\")}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.start[0] != token.end[0]:
                blocked.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return blocked
