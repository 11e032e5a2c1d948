"""GD201: clear the gradients once per step, with your optimizer: `optimizer.zero_grad()` just
before the backward of the same loop body (or right after the step when the backward is elsewhere)."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, first_calling, siblings, stepped_optimizer
from graddoctor.editing.source import Change, Source, after, before, statement

CODE = "GD201"


def edit(finding: Finding, src: Source) -> Change | None:
    step_stmt = src.statement_at(finding.line)
    steps = calls_in(src, step_stmt, "step") if step_stmt is not None else []
    if not steps:
        return None
    optimizer = stepped_optimizer(src, steps[0])
    if optimizer is None:
        return None
    clear = statement(f"{optimizer}.zero_grad()")
    body = siblings(src, step_stmt)
    backward = first_calling(src, body[: body.index(step_stmt)], "backward") if step_stmt in body else None
    if backward is not None:
        return Change(f"call `{optimizer}.zero_grad()` before the backward", {backward: before(clear)})
    return Change(f"call `{optimizer}.zero_grad()` after the step", {step_stmt: after(clear)})
