"""GD206: gradient clipping after the optimizer step, or before backward: it clips nothing useful."""

from __future__ import annotations

from graddoctor.lint.analysis.flow import exclusive
from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.reporter import Reporter

CODE = "GD206"


def check(a: FileAnalysis, r: Reporter) -> None:
    if "clip_grad" not in a.source:
        return
    for it in iterations(a):
        events = it.events
        if not any(e.kind == "backward" for e in events):
            continue
        for i, c in enumerate(events):
            if c.kind != "clip":
                continue
            # Only calls that can run in the same pass as the clip: an `if:` arm's step never precedes its `else:` clip.
            def near(e, c=c):
                return e.kind in ("backward", "step", "opaque") and not exclusive(e, c)

            prev = next((e for e in reversed(events[:i]) if near(e)), None)
            nxt = next((e for e in events[i + 1 :] if near(e)), None)
            if prev is not None and prev.kind == "step":
                where, other = "after the optimizer step", prev
                note = "the step already used the unclipped gradients here"
            elif prev is None and nxt is not None and nxt.kind == "backward" and (
                    it.kind == "loop" or _whole_step(events, i, c, nxt)):
                where, other = "before backward", nxt
                note = "the gradients that the step uses are computed here, after the clip"
            else:
                continue
            r.add(
                CODE,
                f"Gradients are clipped on line {c.line}, {where} (line {other.line}), so the step uses "
                "unclipped gradients.",
                c.node,
                related=[r.related(other.line, note)],
                hint="Clip between `loss.backward()` and `optimizer.step()`.",
            )


def _whole_step(events, i: int, clip, backward) -> bool:
    """A function that runs a whole training step (`zero_grad`, clip, `backward`, `step`): its clip
    sees only the cleared gradients, whatever calls it.

    A function that only clips and calls backward may be one micro-batch of an accumulation
    whose earlier gradients are meant to be clipped: not judged.
    """
    cleared = any(e.kind == "zero_grad" and not exclusive(e, clip) for e in events[:i])
    after = events[events.index(backward) + 1:]
    return cleared and any(e.kind == "step" and not exclusive(e, backward) for e in after)
