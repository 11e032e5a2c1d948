"""Where checks put what they find: Findings with 1-based character columns, and safe fixes."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from graddoctor.finding import Finding, Related, Severity
from graddoctor.lint.segments import encode_lines, segment
from graddoctor.rules import make


@dataclass(frozen=True)
class Fix:
    """Replace source from (line, col) to (end_line, end_col) with `text`; columns in characters, 0-based."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str
    title: str


class Reporter:
    def __init__(self, filename: str, source: str):
        self.filename = filename
        self.source = source
        self._lines: list[str] | None = None
        self.results: list[tuple[Finding, Fix | None]] = []

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.source.splitlines()
        return self._lines

    def column(self, line: int, byte_col: int) -> int:
        """ast counts columns in UTF-8 bytes; people and editors count characters."""
        if 0 < line <= len(self.lines):
            text = self.lines[line - 1]
            if not text.isascii():
                return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))
        return byte_col

    def related(self, line: int | None, note: str) -> Related:
        return Related(self.filename, line, note)

    def fix_for(self, node: ast.AST, text: str, title: str) -> Fix:
        return Fix(
            node.lineno,
            self.column(node.lineno, node.col_offset),
            node.end_lineno,
            self.column(node.end_lineno, node.end_col_offset),
            text,
            title,
        )

    def segment(self, node: ast.AST) -> str:
        lines = self.__dict__.get("_encoded")
        if lines is None:
            lines = self._encoded = encode_lines(self.source)
        return segment(lines, node)

    def add(
        self,
        code: str,
        message: str,
        node: ast.AST,
        *,
        related: list[Related] | None = None,
        hint: str | None = None,
        fix: Fix | None = None,
        line: int | None = None,
        severity: Severity | None = None,
        evidence: dict | None = None,
    ) -> None:
        line = line or node.lineno
        column = self.column(line, node.col_offset) + 1 if line == node.lineno else 1
        related = [r for r in related or [] if r.line != line or r.file != self.filename]
        finding = make(code, message, file=self.filename, line=line, column=column, related=related, hint=hint,
                       severity=severity, evidence=evidence)
        self.results.append((finding, fix))
