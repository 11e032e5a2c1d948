"""GD305 update-ratio-out-of-range: steps that change the weights by far more or far less than ~1e-3.

A ratio out of range is a warning only with evidence from the run that it hurts
(harm.py: the loss went non-finite, shot up, or did not fall); a large ratio on a
loss that falls healthily is information. Layers whose weights started at exactly
zero are not in the ratio (LayerStats leaves them out): relative to a weight that
grew from 0 it only counts the steps taken.
"""

from __future__ import annotations

from graddoctor.finding import Finding, Severity
from graddoctor.numerics.harm import falls, harm
from graddoctor.numerics.optimizers import ADAPTIVE
from graddoctor.numerics.places import related
from graddoctor.rules import make

# The cause each GD305 names, as data: conclusions read it (GD505 after a too-large rate), never the hint.
TOO_LARGE = {"lr": "too_large"}
TOO_SMALL = {"lr": "too_small"}


def update_ratio_out_of_range(stats, track) -> list[Finding]:
    opts = stats.options
    key = _key(stats, track)
    adaptive = _adaptive_too_large(stats, track, key)
    if adaptive is not None:
        return [adaptive]
    # Warm-up phases have tiny ratios on purpose: judge the steps at a full learning rate.
    ratios = [r for r, lr in track.ratios if r > 0 and lr >= 0.5 * track.max_lr]
    if len(ratios) < 3:
        return []
    ratios.sort()
    median = ratios[len(ratios) // 2]
    if opts.ratio_low <= median <= opts.ratio_high:
        early = _early_steps_too_large(stats, track, key, median)
        return [early] if early is not None else []
    small = median < opts.ratio_low
    layers = [stats.layer_name(k) for k, t in stats.layers.items() if t.ratio is not None and
              (t.ratio < opts.ratio_low if small else t.ratio > opts.ratio_high)]
    lr = track.max_lr
    observed = (f"Each optimizer step changes the weights by {median:.2g} of their size (median over "
                f"{len(ratios)} measured steps, healthy is around 1e-3)")
    if small:
        # The ratio itself shows that nothing moves; a loss that falls all the same says otherwise.
        falling = key is not None and falls(stats, key)
        return [make(
            "GD305",
            f"{observed}: the learning rate ({lr:g}) looks too small: the weights barely move"
            + (", though the loss still falls." if falling else "."),
            severity=Severity.INFO if falling else None, subjects=layers,
            evidence={"update_ratio": median, "lr": lr, "measured_steps": len(ratios), "loss_falls": falling},
            cause=dict(TOO_SMALL),
            hint=f"Raise the learning rate above {lr:g} (try {_scaled(lr, 100)}), or check that it is not "
                 "scaled down by a scheduler or a loss divided by a large constant.",
            related=_built_at(stats, track, key),
            **track.where.shown(),
        )]
    evidence = harm(stats, key) if key is not None else None
    return [make(
        "GD305",
        f"{observed}: the learning rate ({lr:g}) looks too large: each step rewrites the weights"
        + (f", and {evidence}." if evidence else ". The loss falls all the same, so this is information only."),
        severity=None if evidence else Severity.INFO, subjects=layers,
        evidence={"update_ratio": median, "lr": lr, "measured_steps": len(ratios), "harmed": evidence is not None},
        cause=dict(TOO_LARGE),
        hint=f"Lower the learning rate below {lr:g} (try {_scaled(lr, 0.1)}), or clip the gradient norm.",
        related=_built_at(stats, track, key),
        **track.where.shown(),
    )]


def _adaptive_too_large(stats, track, key: int | None) -> Finding | None:
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
    lr = track.max_lr
    evidence = harm(stats, key) if key is not None else None
    consequence = (f"Each step rewrites the weights instead of adjusting them, and {evidence}." if evidence else
                   "The loss falls all the same (some models normalise their weights away, or are meant to "
                   "take large steps), so this is information only.")
    usual = "1e-3 is its usual default (1e-4 to 3e-3 for most networks)" if lr > 3e-3 else f"try {_scaled(lr, 0.1)}"
    if lr >= 0.5:
        usual += ". lr=1.0 is the default of Adadelta, not of adaptive optimizers like Adam"
    return make(
        "GD305",
        f"{track.kind} moves every weight by about its learning rate on each step, whatever the gradient, "
        f"and lr={lr:g} is about the size of the weights themselves: its first step changed them by "
        f"{early[0]:.2g} of their size (healthy is around 1e-3). {consequence}",
        severity=None if evidence else Severity.INFO,
        evidence={"first_update_ratio": early[0], "lr": lr, "optimizer": track.kind, "harmed": evidence is not None},
        cause=dict(TOO_LARGE),
        hint=f"Use a learning rate below {lr:g} suited to {track.kind}: {usual}.",
        related=_built_at(stats, track, key),
        **track.where.shown(),
    )


def _early_steps_too_large(stats, track, key: int | None, median: float) -> Finding | None:
    """The first full-lr steps rewrote the weights, and the run shows the harm; later steps look normal.

    With SGD at a learning rate far too large (lr=1.0 on a small regression), the first
    steps change the weights by several times their size, push ReLU units out of their
    active range or saturate them, and from then on only the few parameters still
    reached (a bias) move, by a small fraction of all the weights: the median ratio
    looks healthy while the loss oscillates at a constant or rising level. A warning only
    with that evidence (harm.py); a large first step on a loss that then falls is nothing.
    """
    opts = stats.options
    early = [r for r, lr in track.early if r > 0 and lr >= 0.5 * track.max_lr]
    if not early or max(early) <= opts.ratio_high or key is None:
        return None
    evidence = harm(stats, key)
    if evidence is None:
        return None
    lr = track.max_lr
    shown = ", ".join(f"{r:.2g}" for r in early)
    return make(
        "GD305",
        f"The first optimizer steps changed the weights by {shown} of their size (healthy is around 1e-3): "
        f"the learning rate ({lr:g}) looks too large: those steps rewrote the weights, and later ones moved "
        f"them by much less (median {median:.2g}), as happens when large early steps leave units dead or "
        f"saturated so that little of the model is still trained; {evidence}.",
        evidence={"early_update_ratios": early, "update_ratio": median, "lr": lr, "harmed": evidence is not None},
        cause=dict(TOO_LARGE),
        hint=f"Lower the learning rate below {lr:g} (try {_scaled(lr, 0.1)}), or clip the gradient norm.",
        related=_built_at(stats, track, key),
        **track.where.shown(),
    )


def _scaled(lr: float, factor: float) -> str:
    return f"{lr * factor:.0e}".replace("e-0", "e-").replace("e+0", "e")


def _key(stats, track) -> int | None:
    return next((k for k, t in stats.optimizers.items() if t is track), None)


def _built_at(stats, track, key: int | None) -> list:
    """The line that built the optimizer, where its lr is set: the line to change."""
    # Not guarded: a failure here is our bug, recorded by the session around `findings()`.
    record = next((r for r in stats.session.optimizers() if id(r.optimizer) == key), None)
    if record is None:
        return []
    return related(record.created_at, f"{record.label} built here with lr={track.max_lr:g}")
