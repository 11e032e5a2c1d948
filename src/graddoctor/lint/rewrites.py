"""Apply lint's safe fixes, or show them as a unified diff first (`--fix --diff`), with the edit engine
of `graddoctor fix` (one way to edit code: on a concrete syntax tree, comments kept)."""

from __future__ import annotations

from graddoctor.lint.reporter import Fix


def apply(source: str, fixes: list[Fix]) -> str:
    """Apply non-overlapping fixes; one that overlaps an earlier one waits for the next run."""
    from graddoctor.editing.source import Source, apply_change, span_change

    chosen: list[Fix] = []
    for fx in sorted(fixes, key=lambda f: (f.line, f.col)):
        if chosen and (fx.line, fx.col) < (chosen[-1].end_line, chosen[-1].end_col):
            continue
        chosen.append(fx)
    src = Source(source)
    spans = [(fx.line, fx.col, fx.end_line, fx.end_col, fx.text) for fx in chosen]
    return apply_change(src, span_change(src, spans, "lint --fix"))


def diff(path: str, before: str, after: str) -> str:
    from graddoctor.editing.plan import unified_diff

    return unified_diff(path, before, after)
