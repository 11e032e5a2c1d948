"""GD202: move `zero_grad()` from between backward and step to just before the backward of the same
loop body (or right after the step, when the backward is not in that body)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, last_calling, siblings
from graddoctor.editing.source import Change, Source, after, moved_before, moving

CODE = "GD202"


def edit(finding: Finding, src: Source) -> Change | None:
    clear = src.statement_at(finding.line)
    if not isinstance(clear, cst.SimpleStatementLine) or len(clear.body) != 1 or not calls_in(src, clear, "zero_grad"):
        return None  # only a statement that does nothing but clear can be moved whole
    body = siblings(src, clear)
    if clear not in body:
        return None
    at = body.index(clear)
    backward = last_calling(src, body[:at], "backward")
    if backward is not None:
        return Change("move `zero_grad()` before the backward", {clear: cst.RemoveFromParent(), backward: moved_before(clear)})
    step = next((s for s in body[at + 1:] if calls_in(src, s, "step")), None)
    if step is not None:
        return Change("move `zero_grad()` after the step", {clear: cst.RemoveFromParent(), step: after(moving(clear))})
    return None
