"""GD204 step-without-effect: an optimizer whose steps change nothing (lr 0, no or zero gradients)."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.graph.phrases import plural
from graddoctor.numerics.places import loop_saw
from graddoctor.rules import make


def step_without_effect(stats, track) -> list[Finding]:
    if track.steps < 3:
        return []
    measured = [r for r, _ in track.ratios]
    if track.lr_zero_steps == track.steps:
        cause, reason = {"lr": "zero"}, "the learning rate of every parameter group is 0"
    elif track.on_every_measured_step(track.no_grad_steps):
        cause, reason = {"grad": "none"}, "no parameter it holds had a gradient (.grad is None) when it stepped"
    elif track.on_every_measured_step(track.zero_grad_steps + track.no_grad_steps) and track.zero_grad_steps:
        cause, reason = {"grad": "zero"}, "every gradient it saw was exactly zero"
    elif measured and all(r == 0.0 for r in measured):
        cause, reason = {"update": "zero"}, "the parameters were unchanged after every measured step"
    else:
        return []
    if "grad" in cause and loop_saw(stats, "GD202"):
        return []  # the zero_grad before step explains it, with a better line
    return [make(
        "GD204",
        f"The optimizer stepped {plural(track.steps, 'time')} but changed nothing: {reason}.",
        step=track.first_step, cause=cause,
        evidence={"steps": track.steps, "lr_zero_steps": track.lr_zero_steps, "no_grad_steps": track.no_grad_steps,
                  "zero_grad_steps": track.zero_grad_steps, "measured_steps": len(measured)},
        **track.where.shown(),
    )]
