"""Whether an optimizer's steps visibly hurt its own loss: the evidence a warning of GD305 needs.

Judged against the run itself, never against a fixed scale: a loss that went
non-finite, that shot up to many times its starting value, or that did not fall
over the run. A ratio or a norm that looks large by a rule of thumb is not
enough: a VAE summed over pixels, forward-forward's Adam at lr=0.03, a
zero-initialised table all look large and learn well.
"""

from __future__ import annotations

import math

from graddoctor.numerics.loss_series import Series, trend

SPIKE = 10.0  # a loss that reached this many times its starting value blew up
_SIGNIFICANT = 3.0  # |z| of a fall, against the series' own step-to-step noise, that is more than noise


def harm(stats, optimizer: int) -> str | None:
    """What shows that the steps of `optimizer` hurt, in words; None when its loss falls healthily or is unknown."""
    if stats.first_bad_loss is not None:
        step, _, value = stats.first_bad_loss
        return f"the loss became {value} at step {step}"
    if stats.first_bad_grad is not None:
        return f"the gradients became non-finite at step {stats.first_bad_grad[0]}"
    book = stats.loss_series
    for series in book.series.values():
        if series.optimizer != optimizer or series.graph.policy or book.adversarial(series):
            continue  # losses not meant to fall say nothing about the steps
        found = _spike(series) or _no_progress(stats, series)
        if found:
            return found
    return None


def falls(stats, optimizer: int) -> bool:
    """Whether every supervised loss that `optimizer` drives clearly fell (one at least was judged)."""
    book = stats.loss_series
    judged = [s for s in book.series.values()
              if s.optimizer == optimizer and not s.graph.policy and not book.adversarial(s) and trend(s) is not None]
    return bool(judged) and all(_no_progress(stats, s) is None for s in judged)


def _spike(series: Series) -> str | None:
    if len(series.first) < 2:
        return None
    start = series.first[0]
    peak = max(series.first + list(series.last))
    if math.isfinite(peak) and abs(start) > 1e-12 and peak > start + (SPIKE - 1) * abs(start):
        return f"the loss shot up from {start:.4g} to {peak:.4g}"
    return None


def _no_progress(stats, series: Series) -> str | None:
    t = trend(series)
    if t is None or abs(t.first) < 1e-8:
        return None
    # Fallen: below the first window by the stall margin, or by more than its own step-to-step noise
    # (GD306's test). A fall only one of the two shows (a few steps whose loss falls fast, and so
    # looks noisy) is no evidence that the steps hurt. A loss stuck on one value has no noise at all:
    # any difference is infinitely "significant" there, so only the margin counts.
    dropped = t.last < t.first - stats.options.stall_min_drop * abs(t.first)
    if dropped or (math.isfinite(t.z) and t.z < -_SIGNIFICANT):
        return None
    return f"the loss did not fall (median {t.first:.4g} over the first {t.window} steps, {t.last:.4g} over the last)"
