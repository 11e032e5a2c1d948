"""GD302 non-finite-gradient: gradients became NaN/Inf while the loss was finite."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.numerics.places import bad_grad_first, divergence_hint, with_origin
from graddoctor.rules import make


def non_finite_gradient(stats) -> list[Finding]:
    if not bad_grad_first(stats):
        return []
    step, where, layers, params = stats.first_bad_grad
    at, related, made = with_origin(stats, where, [])
    return [make(
        "GD302",
        f"Gradients became non-finite at optimizer step {step} while the loss was finite; going "
        f"backward from the loss, {layers[0]} is the first layer with NaN/Inf gradients "
        f"(the layers before it inherit them).{made}",
        subjects=params, step=step, related=related, hint=divergence_hint(stats), **at.shown(),
    )]
