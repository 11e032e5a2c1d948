"""GD202: zero_grad between backward and step, so the step applies no gradient."""

from __future__ import annotations

from graddoctor.lint.analysis.flow import exclusive
from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.reporter import Reporter

CODE = "GD202"


def check(a: FileAnalysis, r: Reporter) -> None:
    for it in iterations(a):
        events = it.events
        optimizers = {e.target for e in events if e.kind == "step"}
        for i, z in enumerate(events):
            if z.kind != "zero_grad":
                continue
            if z.model_zero and len(optimizers) != 1:
                continue  # `netD.zero_grad()` among several optimizers: cannot tell whose step follows
            matches = (lambda e: True) if z.model_zero or z.target is None else (lambda e, t=z.target: e.target in (t, None))
            # Only calls that can run in the same pass: a backward in an `if:` arm and a zero_grad in its `else:` never meet.
            before = _previous(events, i, lambda e, z=z: matches(e) and not exclusive(e, z))
            after = _next(events, i, lambda e, z=z: matches(e) and not exclusive(e, z))
            if before is None or before.kind != "backward" or after is None or after.kind != "step":
                continue
            if before.conditional != z.conditional and z.conditional and z.path != after.path:
                continue  # a zero_grad in a branch the step is not in (`if not finite: zero_grad()`)
            r.add(
                CODE,
                f"zero_grad on line {z.line} runs after backward (line {before.line}) and before the step "
                f"(line {after.line}), so it erases the gradients the step needs: parameters never change.",
                z.node,
                related=[r.related(before.line, "gradients computed here"), r.related(after.line, "the step that gets none")],
                hint="Move `zero_grad()` before `backward()` (or after `step()`).",
            )


def _previous(events, i, matches):
    for e in reversed(events[:i]):
        if e.kind in ("backward", "step", "opaque") and matches(e):
            return e
    return None


def _next(events, i, matches):
    for e in events[i + 1 :]:
        if e.kind in ("backward", "step", "opaque") and matches(e):
            return e
    return None
