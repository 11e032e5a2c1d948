"""GD301 non-finite-loss: the first step whose loss was NaN/Inf."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.numerics.places import bad_grad_first, divergence_hint, loss_place, with_origin
from graddoctor.rules import make


def non_finite_loss(stats) -> list[Finding]:
    if stats.first_bad_loss is None or bad_grad_first(stats):  # else the NaN weights explain the loss
        return []
    step, where, value = stats.first_bad_loss
    at, related = loss_place(stats, where)
    at, related, made = with_origin(stats, at, related)
    return [make(
        "GD301",
        f"The loss was {value} at optimizer step {step}, the first non-finite loss of the run; "
        f"every gradient and every update after it is NaN too.{made}",
        step=step, related=related, hint=divergence_hint(stats), **at.shown(),
        evidence={"loss": str(value), "step": step, "diverged": bool(divergence_hint(stats))},
    )]
