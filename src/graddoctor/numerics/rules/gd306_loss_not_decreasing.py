"""GD306 loss-not-decreasing: a loss flat or rising over the observed window, with the causes found."""

from __future__ import annotations

import math

from graddoctor.finding import Finding, Severity
from graddoctor.graph.phrases import name_list
from graddoctor.numerics.rules.places import loss_place, vanishing_layers
from graddoctor.rules import make


def loss_not_decreasing(stats) -> list[Finding]:
    opts = stats.options
    if stats.loss_steps < opts.stall_steps or len(stats.loss_first) < 4:
        return []
    q = max(2, opts.stall_steps // 4)
    first = sum(stats.loss_first[:q]) / q
    last_values = list(stats.loss_last)[-q:]
    last = sum(last_values) / len(last_values)
    if not (math.isfinite(first) and math.isfinite(last)) or abs(first) < 1e-8:
        return []
    if last < first - opts.stall_min_drop * abs(first):
        return []
    trend = "rose" if last > first + opts.stall_min_drop * abs(first) else "stayed flat"
    causes = stall_causes(stats)
    diverging = last > first + opts.stall_rise * abs(first)
    because = ("The evidence points to: " + "; ".join(causes) + ".") if causes else (
        "Gradients flow and steps change the weights, so look at the data, the labels and the loss function.")
    # A flat loss with healthy gradients and updates is often intended (a GAN, a
    # self-distillation target that moves, RL returns, a loss already at its floor):
    # without a cause or a clear rise it is worth knowing, not a warning.
    severity = None if causes or diverging else Severity.INFO
    at, related = loss_place(stats, stats.last_backward)
    return [make(
        "GD306",
        f"The loss {trend} over {stats.loss_steps} optimizer steps (mean {first:.4g} over the first {q}, "
        f"{last:.4g} over the last {q}). {because}",
        severity=severity, related=related,
        **at.shown(),
    )]


def stall_causes(stats) -> list[str]:
    opts = stats.options
    causes = []
    tracks = list(stats.optimizers.values())
    if tracks and all(t.no_grad_steps == t.steps for t in tracks):
        causes.append("no parameter has a gradient when the optimizer steps (GD104/GD202)")
    elif tracks and all(t.zero_grad_steps + t.no_grad_steps == t.steps for t in tracks):
        causes.append("every gradient is exactly zero (GD111)")
    if tracks and all(t.lr_zero_steps == t.steps for t in tracks):
        causes.append("the learning rate is 0")
    for t in tracks:
        ratios = sorted(r for r, _ in t.ratios if r > 0)
        if ratios and ratios[len(ratios) // 2] < opts.ratio_low:
            causes.append(f"the learning rate {t.max_lr:g} is too small to move the weights (GD305)")
            break
        if ratios and ratios[len(ratios) // 2] > opts.ratio_high:
            causes.append(f"the learning rate {t.max_lr:g} is so large that each step rewrites the weights (GD305)")
            break
    vanishing = vanishing_layers(stats)
    if vanishing:
        causes.append(f"vanishing gradients in {name_list(vanishing[:3])} (GD304)")
    causes.extend(stats.session.consult(stats.loop, lambda loop: loop.stall_evidence(), []))
    return causes
