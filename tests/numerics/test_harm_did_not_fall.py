"""What counts as "the loss did not fall", the evidence that turns a large update ratio (GD305) into a warning.

Found on pytorch/examples' forward-forward script (unseeded, Adam at lr=0.03, 20 steps per layer):
its loss fell from a median of 0.86 to 0.71, but with 5 values per window and a first window that
falls fast, the fall was not 3 times its step-to-step noise, and "did not fall" was said of a loss
that fell by 17%. A fall shown by either test (the stall margin, or the noise) is not evidence of harm.
"""

from __future__ import annotations

from types import SimpleNamespace

from graddoctor.locate import Location
from graddoctor.numerics.harm import _no_progress
from graddoctor.numerics.loss_series import GraphSummary, Series, trend
from graddoctor.numerics.options import NumericsOptions


def _series(values: list[float]) -> Series:
    series = Series(Location("train.py", 20), optimizer=1, graph=GraphSummary())
    for step, value in enumerate(values, 1):
        series.add(value, step)
    return series


_STATS = SimpleNamespace(options=NumericsOptions())


def test_a_large_fall_that_noise_leaves_unproven_is_not_harm():
    # 20 steps: the first five fall fast and jump (large step-to-step differences), the last five settle
    values = [1.13, 0.78, 0.98, 0.74, 0.86, 0.83, 0.80, 0.79, 0.77, 0.76,
              0.75, 0.74, 0.74, 0.73, 0.72, 0.64, 0.79, 0.71, 0.62, 0.76]
    t = trend(_series(values))
    assert t.last < 0.9 * t.first and t.z > -3  # a 10 % fall the noise alone does not prove
    assert _no_progress(_STATS, _series(values)) is None


def test_a_loss_stuck_on_one_value_did_not_fall():
    # SGD at lr=1.0 kills every ReLU in 5 steps; then the loss is one value to the last bit
    values = [9.28, 23.29, 30.84, 11.62, 5.73] + [5.687] * 35
    said = _no_progress(_STATS, _series(values))
    assert said is not None and "did not fall" in said


def test_a_noisy_flat_loss_did_not_fall():
    values = [2.30 + (0.05 if i % 3 == 0 else -0.04 if i % 3 == 1 else 0.0) for i in range(40)]
    assert _no_progress(_STATS, _series(values)) is not None


def test_a_small_fall_well_above_the_noise_is_a_fall():
    values = [1.000 - 0.0002 * i + (0.00001 if i % 2 else 0.0) for i in range(40)]  # 0.8 % over the run
    t = trend(_series(values))
    assert t.last > t.first * 0.99 and t.z < -3
    assert _no_progress(_STATS, _series(values)) is None
