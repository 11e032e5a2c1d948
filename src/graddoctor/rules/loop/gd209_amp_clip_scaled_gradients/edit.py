"""GD209: unscale the gradients before clipping them under a GradScaler: `scaler.unscale_(optimizer)`
just before the clip, with your scaler and optimizer."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, scaler_name, siblings, stepped_optimizer
from graddoctor.editing.source import Change, Source, before, statement

CODE = "GD209"


def edit(finding: Finding, src: Source) -> Change | None:
    clip = src.statement_at(finding.line)
    if clip is None:
        return None
    scaler = scaler_name(src, clip)
    if scaler is None:
        return None
    body = siblings(src, clip)
    later = body[body.index(clip) + 1:] if clip in body else []
    steps = [c for s in later for c in calls_in(src, s, "step") if src.code(c.func).startswith(scaler + ".")]
    optimizer = stepped_optimizer(src, steps[0]) if steps else None
    if optimizer is None:
        return None
    return Change(f"call `{scaler}.unscale_({optimizer})` before clipping",
                  {clip: before(statement(f"{scaler}.unscale_({optimizer})"))})
