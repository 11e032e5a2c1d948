"""Long runs: gradient norms are measured on every step of the first `dense_steps`, then on every
`measure_every`-th (numerics/options.py), while losses are read on every step.

What must not change with the thinner schedule: a step whose gradients are all zero for the whole
run is still GD204 (the measured steps are every step judged), a stalled loss still has one point
per step, and a NaN after the dense phase is still found with the step it appeared at.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from graddoctor import watch


def _layer_stats(w):
    return next(o for o in w.session.observers if o.name == "layers").record


def _regression(steps: int, *, rounded: bool = False, nan_at: int | None = None, **opts):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=1e-2)
    x, y = torch.randn(64, 16), torch.randn(64, 1)
    with watch(model, opt, **opts) as w:
        for step in range(1, steps + 1):
            opt.zero_grad()
            inputs = x.clone()
            if nan_at is not None and step >= nan_at:
                inputs[0, 0] = float("nan")  # a corrupt sample from this step on
            pred = model(inputs)
            if rounded:  # "the targets are whole numbers": round() has a zero gradient everywhere
                pred = torch.round(pred)
            loss = F.mse_loss(pred, y)
            loss.backward()
            opt.step()
    return w


def test_norms_are_measured_densely_then_every_eighth_step():
    w = _regression(300)
    track = next(iter(_layer_stats(w).optimizers.values()))
    assert track.steps == 300
    # steps 1-100 measured, then 104, 112, ..., 296: 25 more; the other 175 are not
    assert track.unmeasured_steps == 300 - 100 - 25
    assert not w.session.internal_errors


def test_measure_every_one_measures_every_step():
    w = _regression(160, measure_every=1)
    track = next(iter(_layer_stats(w).optimizers.values()))
    assert track.unmeasured_steps == 0


def test_losses_keep_one_point_per_step_past_the_dense_phase():
    w = _regression(240)
    series = list(_layer_stats(w).loss_series.series.values())
    assert len(series) == 1
    # 240 points, the last at step 240 (each step its own point, not one per measured step)
    assert (series[0].count, series[0].first_step, series[0].last_step) == (240, 1, 240)


def test_all_zero_gradients_over_a_long_run_are_still_gd204():
    w = _regression(260, rounded=True)
    found = {f.code: f for f in w.report().findings}
    assert "GD204" in found, sorted(found)
    assert "stepped 260 times" in found["GD204"].message
    # the losses of the run's last, unmeasured steps count too
    assert "over 260 optimizer steps" in found["GD306"].message


def test_a_nan_after_the_dense_phase_is_found_at_its_step():
    w = _regression(200, nan_at=150)
    found = w.report().findings
    bad = [f for f in found if f.code in ("GD301", "GD302")]
    assert bad, [f.code for f in found]
    assert min(f.step for f in bad if f.step) == 150
