"""Apply the safe fixes to files, or show them as a unified diff first (`--fix --diff`)."""

from __future__ import annotations

import difflib

from graddoctor.lint.reporter import Fix


def apply(source: str, fixes: list[Fix]) -> str:
    """Apply non-overlapping fixes (later ones first, so earlier offsets stay valid)."""
    lines = source.splitlines(keepends=True)
    chosen: list[Fix] = []
    for fx in sorted(fixes, key=lambda f: (f.line, f.col)):
        if chosen and (fx.line, fx.col) < (chosen[-1].end_line, chosen[-1].end_col):
            continue  # overlaps the previous fix: leave it for the next run
        chosen.append(fx)
    for fx in reversed(chosen):
        start = lines[fx.line - 1][: fx.col]
        end_text = lines[fx.end_line - 1][fx.end_col :]
        lines[fx.line - 1 : fx.end_line] = [start + fx.text + end_text]
    return "".join(lines)


def diff(path: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}")
    )
