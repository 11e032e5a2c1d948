"""The numerics rules: one module per code, each judging what LayerStats measured.

Judged once, at the end, on the whole observed run, so that one noisy step
does not make a finding and each finding names the step where it began.
"""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.numerics.rules.gd111_gradient_always_zero import gradient_always_zero
from graddoctor.numerics.rules.gd204_step_without_effect import step_without_effect
from graddoctor.numerics.rules.gd301_non_finite_loss import non_finite_loss
from graddoctor.numerics.rules.gd302_non_finite_gradient import non_finite_gradient
from graddoctor.numerics.rules.gd303_exploding_gradients import exploding_gradients
from graddoctor.numerics.rules.gd304_vanishing_gradients import vanishing_gradients
from graddoctor.numerics.rules.gd305_update_ratio_out_of_range import update_ratio_out_of_range
from graddoctor.numerics.rules.gd306_loss_not_decreasing import loss_not_decreasing

CODES = frozenset({"GD111", "GD204", "GD301", "GD302", "GD303", "GD304", "GD305", "GD306"})


def numerics_findings(stats) -> list[Finding]:
    out: list[Finding] = []
    out.extend(non_finite_loss(stats))
    out.extend(non_finite_gradient(stats))
    out.extend(exploding_gradients(stats))
    out.extend(vanishing_gradients(stats))
    for track in stats.optimizers.values():
        out.extend(step_without_effect(stats, track))
        out.extend(update_ratio_out_of_range(stats, track))
    out.extend(loss_not_decreasing(stats))
    out.extend(gradient_always_zero(stats))
    return out
