"""GD305 update-ratio-out-of-range: steps that change the weights by far more or far less than ~1e-3."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.numerics.rules.places import related
from graddoctor.rules import make

# Optimizers whose step moves each weight by about `lr`, whatever the gradient's size
# (the gradient is divided by its own running RMS, or only its sign is used). Adadelta is
# not one: its `lr` (1.0 by default) scales a ratio of running averages.
ADAPTIVE = frozenset({"Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "SparseAdam",
                      "Adafactor", "Lion", "FusedAdam", "Adam8bit", "AdamW8bit", "PagedAdamW"})


def update_ratio_out_of_range(stats, track) -> list[Finding]:
    opts = stats.options
    # Warm-up phases have tiny ratios on purpose: judge the steps at a full learning rate.
    ratios = [r for r, lr in track.ratios if r > 0 and lr >= 0.5 * track.max_lr]
    adaptive = _adaptive_too_large(stats, track)
    if adaptive is not None:
        return [adaptive]
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


def _adaptive_too_large(stats, track) -> Finding | None:
    """An adaptive optimizer whose first full-lr step moved the weights by more than `ratio_high` of their size.

    The first steps are the evidence: such a step moves each weight by about lr, so with
    an lr near the weights' own scale the weights grow until later ratios look normal.
    """
    if track.kind not in ADAPTIVE:
        return None
    opts = stats.options
    early = [r for r, lr in track.early if r > 0 and lr >= 0.5 * track.max_lr]
    if not early or early[0] <= opts.ratio_high:
        return None
    return make(
        "GD305",
        f"{track.kind} moves every weight by about its learning rate on each step, whatever the gradient, "
        f"and lr={track.max_lr:g} is about the size of the weights themselves: its first step changed them by "
        f"{early[0]:.2g} of their size (healthy is around 1e-3), so each step rewrites the weights instead of "
        f"adjusting them.",
        hint=(f"Use a learning rate suited to {track.kind}: 1e-3 is its usual default (1e-4 to 3e-3 for most "
              "networks). lr=1.0 is the default of Adadelta, not of adaptive optimizers like Adam."),
        related=_built_at(stats, track),
        **track.where.shown(),
    )


def _built_at(stats, track) -> list:
    """The line that built the optimizer, where its lr is set: the line to change."""
    key = next((k for k, t in stats.optimizers.items() if t is track), None)
    try:
        records = stats.session.optimizers()
    except Exception:
        return []
    record = next((r for r in records if id(r.optimizer) == key), None)
    if record is None:
        return []
    return related(record.created_at, f"{record.label} built here with lr={track.max_lr:g}")
