"""GD209: clipping gradients under a GradScaler without `scaler.unscale_(optimizer)` first."""

from __future__ import annotations

from graddoctor.lint.analysis.flow import exclusive
from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.reporter import Reporter

CODE = "GD209"


def check(a: FileAnalysis, r: Reporter) -> None:
    if "scale" not in a.source or "clip_grad" not in a.source:
        return
    for it in iterations(a):
        events = it.events
        for i, c in enumerate(events):
            if c.kind != "clip" or c.scaled:
                continue
            prev = next(
                (e for e in reversed(events[:i]) if e.kind in ("backward", "step", "unscale") and not exclusive(e, c)), None
            )
            if prev is None or prev.kind != "backward" or not prev.scaled:
                continue
            r.add(
                CODE,
                f"Gradients are clipped on line {c.line} while they are still multiplied by the GradScaler's scale "
                f"(backward on line {prev.line} was on `scaler.scale(loss)`), so the max norm compares against "
                "scaled gradients and clipping is far too strong or never happens.",
                c.node,
                related=[r.related(prev.line, "scaled backward")],
                hint="Call `scaler.unscale_(optimizer)` right before clipping.",
            )
