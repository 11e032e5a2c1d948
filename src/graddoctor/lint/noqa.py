"""Suppression comments, and which of them suppressed nothing.

- `# noqa` silences every code on its line; `# noqa: GD101, GD2` the codes or prefixes named;
  `# noqa: graph-kept-alive` the rule of that name (names survive renumbering, and say why).
- `# graddoctor: noqa` on a line of its own silences the whole file; `# graddoctor: noqa: GD2`
  the codes, prefixes or names listed, in the whole file.

Names and codes of other tools (`# noqa: E501`) are left alone: they are not ours to judge.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_ITEM = r"[A-Za-z][A-Za-z0-9_-]*"
_LIST = rf"{_ITEM}(?:[\s,]+{_ITEM})*"
_NOQA = re.compile(rf"#\s*noqa(?::\s*(?P<codes>{_LIST}))?", re.I)
_FILE_NOQA = re.compile(rf"^#\s*graddoctor:\s*noqa(?::\s*(?P<codes>{_LIST}))?\s*$", re.I)
_CODE = re.compile(r"^GD\d{0,3}$", re.I)


@dataclass
class Item:
    """One code, prefix or rule name of a noqa comment, and whether it silenced anything."""

    text: str
    line: int
    column: int
    used: bool = False

    def matches(self, code: str, name: str) -> bool:
        return names(self.text, code, name)


def names(text: str, code: str, name: str) -> bool:
    """Whether `text` (a code, a prefix like GD2, ALL, or a rule name) designates the rule `code`/`name`."""
    if text.upper() == "ALL":
        return True
    if _CODE.match(text):
        return code.upper().startswith(text.upper())
    return text.lower() == name.lower()


@dataclass
class Directives:
    """The suppression comments of one file."""

    by_line: dict[int, list[Item] | None] = field(default_factory=dict)  # None: a bare `# noqa`
    whole_file: list[Item] | None = field(default_factory=list)  # None: `# graddoctor: noqa`, everything

    @classmethod
    def parse(cls, source: str) -> "Directives":
        found = cls()
        if "noqa" not in source and "NOQA" not in source:
            return found
        for line, column, text, alone in _comments(source):
            whole = _FILE_NOQA.match(text) if alone else None
            if whole:
                if whole.group("codes") is None:
                    found.whole_file = None
                elif found.whole_file is not None:
                    found.whole_file += _items(whole, line, column)
                continue
            for match in _NOQA.finditer(text):
                if match.group("codes") is None:
                    found.by_line[line] = None
                elif found.by_line.get(line, []) is not None:
                    found.by_line[line] = found.by_line.get(line, []) + _items(match, line, column)
        return found

    def suppresses(self, line: int | None, code: str, name: str) -> bool:
        """Whether a finding of `code`/`name` at `line` is silenced; marks the comments that silenced it."""
        if self.whole_file is None:
            return True
        hit = False
        for item in self.whole_file + (self.by_line.get(line) or [] if line else []):
            if item.matches(code, name):
                item.used = hit = True
        return hit or (line is not None and line in self.by_line and self.by_line[line] is None)

    def unused(self, known: "callable", selected: "callable") -> list[Item]:
        """Items naming one of our rules (`known(item) -> codes or None`) that ran and silenced nothing."""
        items = [i for line in self.by_line.values() if line for i in line] + list(self.whole_file or [])
        out = []
        for item in items:
            codes = known(item.text)
            if item.used or not codes or not any(selected(c) for c in codes):
                continue
            out.append(item)
        return out


def _items(match: re.Match, line: int, column: int) -> list[Item]:
    start = column + match.start("codes")
    return [Item(m.group(), line, start + m.start()) for m in re.finditer(_ITEM, match.group("codes"))]


def _comments(source: str) -> list[tuple[int, int, str, bool]]:
    """(line, 1-based column, text, alone on its line) of every comment that mentions noqa: tokens, so
    that a string never counts."""
    out = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and "noqa" in token.string.lower():
                alone = not token.line[: token.start[1]].strip()
                out.append((token.start[0], token.start[1] + 1, token.string, alone))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # the file parsed (ast accepted it), so this is only an unterminated last line: keep what we have
    return out
