"""Walking only the parts of a tree that a text search points at.

Some checks look for rare shapes (`[block] * n`, `(a - b) ** 2`) that the
shared call index does not hold. Walking the whole tree for them cost more than
parsing on large library files (transformers: `**kwargs` everywhere), so they
first find candidate lines with a regular expression and then walk only the
statements that span one of those lines.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterator


def lines_matching(source: str, pattern: re.Pattern[str]) -> list[int]:
    """1-based line numbers where `pattern` matches (sorted, without repeats)."""
    found: list[int] = []
    line, pos = 1, 0
    for m in pattern.finditer(source):
        line += source.count("\n", pos, m.start())
        pos = m.start()
        if not found or found[-1] != line:
            found.append(line)
    return found


def covers(lines: list[int], start: int, end: int) -> bool:
    """Whether one of the sorted `lines` lies in start..end."""
    i = bisect.bisect_left(lines, start)
    return i < len(lines) and lines[i] <= end


def walk_lines(tree: ast.AST, lines: list[int]) -> Iterator[ast.AST]:
    """Every node inside the statements that span one of `lines` (statements elsewhere are skipped whole)."""
    if not lines:
        return
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) and not covers(lines, child.lineno, child.end_lineno or child.lineno):
                continue
            stack.append(child)
