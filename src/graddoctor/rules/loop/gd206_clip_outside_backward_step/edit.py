"""GD206: move the gradient clipping to just after the backward of the same loop body, so it runs
between backward and step; a clip alone in an `if` (`if grad_clip > 0:`) moves with its `if`, when that body
assigns nothing the condition reads."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, first_calling, last_calling, siblings, walk
from graddoctor.editing.source import Change, Source, after, moving

CODE = "GD206"
_CLIPS = ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grads_with_norm_")


def edit(finding: Finding, src: Source) -> Change | None:
    clip = src.statement_at(finding.line)
    if not isinstance(clip, cst.SimpleStatementLine) or not any(calls_in(src, clip, name) for name in _CLIPS):
        return None
    clip = _guard(src, clip) or clip
    body = siblings(src, clip)
    if clip not in body:
        return None
    others = [s for s in body if s is not clip]
    at = body.index(clip)
    # The backward the clip belongs with: the last one before it (clip after step), else the next one.
    backward = last_calling(src, body[:at], "backward") or first_calling(src, body[at + 1:], "backward")
    if backward is None or not any(calls_in(src, s, "step") for s in others[others.index(backward) + 1:]):
        return None
    return Change("clip between the backward and the step",
                  {clip: cst.RemoveFromParent(), backward: after(moving(clip))})


def _guard(src: Source, clip: cst.SimpleStatementLine) -> cst.If | None:
    """The `if` that holds the clip alone (`if grad_clip > 0:`, no `else`) when the statements around it assign
    none of the names its condition reads: moved together, the condition still means what it meant."""
    block = src.parent(clip)
    guard = src.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not isinstance(guard, cst.If) or guard.orelse is not None or list(guard.body.body) != [clip]:
        return None
    read = {n.value for n in walk(guard.test) if isinstance(n, cst.Name)}
    assigned = {n.value for s in siblings(src, guard) if s is not guard
                for n in walk(s) if isinstance(n, cst.Name) and isinstance(src.parent(n), (cst.AssignTarget, cst.AugAssign))}
    return guard if not read & assigned else None
