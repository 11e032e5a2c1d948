"""GD305 update-ratio-out-of-range: steps that change the weights by far more or far less than ~1e-3."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.rules import make


def update_ratio_out_of_range(stats, track) -> list[Finding]:
    opts = stats.options
    # Warm-up phases have tiny ratios on purpose: judge the steps at a full learning rate.
    ratios = [r for r, lr in track.ratios if r > 0 and lr >= 0.5 * track.max_lr]
    if len(ratios) < 3:
        return []
    ratios.sort()
    median = ratios[len(ratios) // 2]
    if opts.ratio_low <= median <= opts.ratio_high:
        return []
    small = median < opts.ratio_low
    layers = [stats.layer_name(k) for k, t in stats.layers.items() if t.ratio is not None and
              (t.ratio < opts.ratio_low if small else t.ratio > opts.ratio_high)]
    verdict = ("too small: the weights barely move" if small else "too large: each step rewrites the weights")
    return [make(
        "GD305",
        f"Each optimizer step changes the weights by {median:.2g} of their size (median over "
        f"{len(ratios)} measured steps, healthy is around 1e-3): the learning rate ({track.max_lr:g}) looks {verdict}.",
        subjects=layers, **track.where.shown(),
    )]
