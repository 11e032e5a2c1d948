"""GD213: step the optimizer whose gradients the backward computed: `d_optimizer.step()` becomes
`g_optimizer.step()` at the finding's line, when the optimizer that never steps is known by name."""

from __future__ import annotations

import libcst as cst

from graddoctor.editing.shape import built_optimizers, calls_in, name_of, siblings
from graddoctor.editing.source import Change, Source, expression, receiver
from graddoctor.finding import Finding

CODE = "GD213"


def edit(finding: Finding, src: Source) -> Change | None:
    steps = [c for c in src.calls_at(finding.line, "step") if not c.args]
    if len(steps) != 1:
        return None
    step = steps[0]
    stepped = name_of(src, receiver(step))
    cause = finding.cause or {}
    if stepped is None or cause.get("stepped", stepped) != stepped:
        return None
    wanted = cause.get("never_stepped") or _zeroed_before(src, step, stepped)
    if not wanted or wanted == stepped:
        return None
    return Change(f"step `{wanted}` instead of `{stepped}` after this backward",
                  {receiver(step): expression(wanted)})


def _zeroed_before(src: Source, step: cst.Call, stepped: str) -> str | None:
    """The one other optimizer whose `zero_grad()` runs in the statements between the previous step and this one."""
    stmt = src.statement_of(step)
    block = siblings(src, stmt) if stmt is not None else []
    if stmt not in block:
        return None
    names: set[str] = set()
    for before in reversed(block[:block.index(stmt)]):
        if calls_in(src, before, "step"):
            break
        names |= {name_of(src, receiver(c)) for c in calls_in(src, before, "zero_grad")}
    names &= built_optimizers(src)
    names.discard(stepped)
    return names.pop() if len(names) == 1 else None
