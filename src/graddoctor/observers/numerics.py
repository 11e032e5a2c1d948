"""The numerics observer: LayerStats measures, the judges (in the order they run here) decide.

Each judge lives with its rule (`rules/<family>/gdNNN_*/judge.py`); this module only calls them.

Judged once, at the end, on the whole observed run, so that one noisy step
does not make a finding and each finding names the step where it began.
"""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.numerics.layers import LayerStats
from graddoctor.rules.graph.gd111_gradient_always_zero.judge import gradient_always_zero
from graddoctor.rules.loop.gd204_step_without_effect.judge import step_without_effect
from graddoctor.rules.numerics.gd301_non_finite_loss.judge import non_finite_loss
from graddoctor.rules.numerics.gd302_non_finite_gradient.judge import non_finite_gradient
from graddoctor.rules.numerics.gd303_exploding_gradients.judge import exploding_gradients
from graddoctor.rules.numerics.gd304_vanishing_gradients.judge import vanishing_gradients
from graddoctor.rules.numerics.gd305_update_ratio_out_of_range.judge import update_ratio_out_of_range
from graddoctor.rules.numerics.gd306_loss_not_decreasing.judge import loss_not_decreasing

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


class NumericsObserver(LayerStats):
    """LayerStats with its judges: what a watched run attaches (a GradFlowMonitor measures only)."""

    codes = CODES

    def findings(self) -> list[Finding]:
        return numerics_findings(self.settle())
