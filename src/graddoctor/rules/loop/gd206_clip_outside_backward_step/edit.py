"""GD206: move the gradient clipping to just after the backward of the same loop body, so it runs
between backward and step."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, first_calling, last_calling, siblings
from graddoctor.editing.source import Change, Source, after, moving

CODE = "GD206"
_CLIPS = ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grads_with_norm_")


def edit(finding: Finding, src: Source) -> Change | None:
    clip = src.statement_at(finding.line)
    if not isinstance(clip, cst.SimpleStatementLine) or not any(calls_in(src, clip, name) for name in _CLIPS):
        return None
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
