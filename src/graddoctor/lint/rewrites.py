"""Apply lint's safe fixes, or show them as a unified diff first (`--fix --diff`), with the edit engine
of `graddoctor fix` (one way to edit code: on a concrete syntax tree, comments kept).

Nothing unproven is written (issue 31): lint cannot run the program, so a rewrite is proven statically. The
rewritten file must compile, and checking it again must find every other problem as before, none new,
and the fixed ones gone; otherwise the file is left as it was."""

from __future__ import annotations

from collections import Counter

from graddoctor.lint.reporter import Fix


def chosen(fixes: list[Fix]) -> list[Fix]:
    """The non-overlapping fixes, in order; one that overlaps an earlier one waits for the next run."""
    out: list[Fix] = []
    for fx in sorted(fixes, key=lambda f: (f.line, f.col)):
        if out and (fx.line, fx.col) < (out[-1].end_line, out[-1].end_col):
            continue
        out.append(fx)
    return out


def apply(source: str, fixes: list[Fix]) -> str:
    """Apply non-overlapping fixes (see `chosen`)."""
    from graddoctor.editing.source import Source, apply_change, span_change

    src = Source(source)
    spans = [(fx.line, fx.col, fx.end_line, fx.end_col, fx.text) for fx in chosen(fixes)]
    return apply_change(src, span_change(src, spans, "lint --fix"))


def unproven(path: str, before: list, fixed: list, after: str, select=None) -> str | None:
    """Why the rewritten text `after` of `path` may not be written, or None when it is proven: it compiles, and
    checking it again finds the findings `before` less the `fixed` ones, nothing new (counted per code)."""
    from graddoctor.lint.engine import lint_source

    try:
        compile(after, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return f"the rewritten file would not compile ({exc})"
    again = Counter(f.code for f in lint_source(after, path, select, unused_noqa=True).findings)
    expected = Counter(f.code for f in before) - Counter(f.code for f in fixed)
    new = again - expected
    if new:
        return "checked again, the rewritten file has " + ", ".join(
            f"{n} more {code} finding{'s' if n > 1 else ''}" for code, n in sorted(new.items()))
    return None


def diff(path: str, before: str, after: str) -> str:
    from graddoctor.editing.plan import unified_diff

    return unified_diff(path, before, after)
