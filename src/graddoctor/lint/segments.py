"""The source text of an AST node, fast.

`ast.get_source_segment` splits the whole file on every call; the linter asks
for many segments of one file, so the lines are encoded once and sliced by the
node's byte offsets (AST columns are UTF-8 byte offsets).
"""

from __future__ import annotations

import ast


def encode_lines(source: str) -> list[bytes]:
    return [line.encode() for line in source.splitlines(keepends=True)]


def segment(lines: list[bytes], node: ast.AST) -> str:
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first][node.col_offset : node.end_col_offset].decode(errors="replace")
    parts = [lines[first][node.col_offset :], *lines[first + 1 : last], lines[last][: node.end_col_offset]]
    return b"".join(parts).decode(errors="replace")
