"""Thresholds of the numerics checks, with their documented defaults.

Every field can be set per run: `watch(vanish_ratio=1e-6)`,
`standard_observers(stall_steps=100)`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields


@dataclass
class NumericsOptions:
    # GD303: a step's total gradient norm this many times the median of the
    # first 5 steps' norms is exploding. Judged against the run itself: healthy
    # summed losses (a VAE with reduction='sum') have norms near 1e4 from the start.
    # `explode_norm` is an absolute threshold a user may set for their own model;
    # crossing it alone is info, and it is off by default.
    explode_norm: float = math.inf
    explode_growth: float = 1e3
    # GD304: a layer whose gradient RMS is below vanish_ratio x the upper-quartile
    # layer's RMS on at least half of the observed steps (3 or more). Measured on
    # the correct corpus and near misses (deep ReLU, residual LayerNorm, transformers):
    # the lowest healthy layer sits at 2.7e-2 of the reference (median over steps),
    # 9.8e-3 on its worst step; a 6-layer sigmoid MLP's first layer at 1.4e-3, deeper
    # ones lower. 3e-3 lies between, with a margin of 3x to the worst healthy step.
    # Embedding tables are not judged: only the rows of the batch get a gradient.
    vanish_ratio: float = 3e-3
    # GD304 warns only when those layers' updates are small too: a layer's update/weight ratio below
    # this fraction of the upper-quartile layer's (median over the measured steps). Adam and its kin
    # rescale each element, so small gradients still move a layer like the rest.
    slow_update_ratio: float = 1e-2
    # GD305: the median update/weight ratio of an optimizer outside [low, high].
    # For adaptive optimizers (Adam, RMSprop...), whose step moves each weight by
    # about lr whatever the gradient, also the first full-lr step's ratio above
    # `ratio_high`: healthy runs measured at most 0.052 there (Adam lr=1e-2), Adam
    # at lr=1.0 about 11; later steps hide it, as the weights grow to the step size.
    # Out of range is a warning only with the run's evidence that it hurts
    # (numerics/harm.py), else info; layers that started at zero are left out.
    ratio_low: float = 1e-6
    ratio_high: float = 0.5
    # The update/weight ratio needs a copy of the weights: measured on the
    # first 3 steps and then every `ratio_every` steps.
    ratio_every: int = 10
    # Per-layer detail (per-layer norms judged for GD304, the layer table's max,
    # GradFlowMonitor's history) on the first 10 steps, then every `layer_every`
    # steps, and at once on a symptom (a non-finite or a new largest norm) and on
    # the last step. The total norm and GD111's zero counts: every measured step.
    layer_every: int = 5
    # Gradient norms are measured at every step of the run's first `dense_steps` (where
    # nearly every finding shows first) and after a symptom, then at every `measure_every`-th
    # step. On a small model graddoctor's kernels and Python cost as much as the user's own
    # step; one in 8 keeps a long run's judgement (growth, vanishing layers, zero gradients)
    # and costs an eighth. Losses are read at every step whatever this says.
    dense_steps: int = 100
    measure_every: int = 8
    # GD306: over at least `stall_steps` steps, the mean loss of the last
    # quarter is not `stall_min_drop` (relative) below that of the first.
    stall_steps: int = 30
    stall_min_drop: float = 0.01
    # Without a cause found for the stall, GD306 is only info unless the loss
    # rose by more than this (relative): a flat loss is often intended.
    stall_rise: float = 0.1
    # GD307: GradScaler skipped more than this fraction of at least 8 steps.
    amp_skip_fraction: float = 0.5
    # Rows of per-step history kept for GradFlowMonitor plots (bounded memory).
    history: int = 256

    @classmethod
    def take(cls, options: dict) -> "NumericsOptions":
        """Pop this class's fields out of `options` (the rest belong to others)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: options.pop(k) for k in list(options) if k in names})
