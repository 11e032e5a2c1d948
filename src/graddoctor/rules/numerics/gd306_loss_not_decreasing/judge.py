"""GD306 loss-not-decreasing: a loss series flat or rising against its own noise, with the causes found.

Judged per loss series (numerics/loss_series.py): one backward line and the
optimizer stepped after it. A warning needs a cause found, or a supervised loss
that clearly diverges; adversarial and policy-gradient losses, which are not
meant to fall, are at most info, and only with a cause. The other findings of the
report that explain a stall are named afterwards, from the `evidence` and `cause`
recorded here, by conclusions/stalled_loss_names_other_causes.py.
"""

from __future__ import annotations

import math

from graddoctor.finding import Finding, Severity
from graddoctor.graph.phrases import name_list
from graddoctor.numerics.loss_series import Series, trend
from graddoctor.numerics.places import loss_place, slow_updates, vanishing_layers
from graddoctor.rules import make

_LOOK_AT_DATA = "Gradients flow and steps change the weights, so look at the data, the labels and the loss function."
_INFO_ONLY = "so this is information only."
_SIGNIFICANT = 3.0  # |z| of the difference of window medians that is more than noise
_DIVERGING = 5.0  # |z| of a rise that is a clear divergence (with a relative rise over stall_rise)


def loss_not_decreasing(stats) -> list[Finding]:
    book = stats.loss_series
    out = []
    for series in book.series.values():
        finding = _judge(stats, series, book)
        if finding is not None:
            out.append(finding)
    return out


def _judge(stats, series: Series, book) -> Finding | None:
    opts = stats.options
    if series.count < opts.stall_steps:
        return None
    t = trend(series)
    if t is None or not (math.isfinite(t.first) and math.isfinite(t.last)) or abs(t.first) < 1e-8:
        return None
    drop = opts.stall_min_drop * abs(t.first)
    if t.last < t.first - drop or t.z < -_SIGNIFICANT:
        return None  # it falls
    rising = t.last > t.first + drop and t.z > _SIGNIFICANT
    track = stats.optimizers.get(series.optimizer)
    causes = stall_causes(stats, [track] if track is not None else list(stats.optimizers.values()))
    not_meant_to_fall = series.graph.policy or book.adversarial(series)
    if not_meant_to_fall:
        if not causes:
            return None  # a GAN or policy-gradient loss that does not fall is normal
        severity = Severity.INFO
    elif causes:
        severity = None
    else:
        diverging = rising and t.z > _DIVERGING and t.last > t.first + opts.stall_rise * abs(t.first)
        if not diverging and _layers_without_gradient(stats, series.optimizer):
            return None  # part of the model never learns: GD104 reports that, a flat-loss note adds nothing
        severity = None if diverging else Severity.INFO
    at, related = loss_place(stats, series.where)
    evidence = {"steps": series.count, "window": t.window, "median_first": t.first, "median_last": t.last,
                "noise": t.noise, "z": t.z, "trend": "rose" if rising else "flat",
                "meant_to_fall": not not_meant_to_fall, "policy": bool(series.graph.policy)}
    return make(
        "GD306", message(evidence, causes),
        severity=severity, related=related, evidence=evidence,
        # each cause in words with the codes it names, as data: a conclusion keeps only the codes the
        # report holds (never names a code that was not reported) and names the report's other findings
        cause={"found": sorted({code for _, codes in causes for code in codes}),
               "causes": [[text, list(codes)] for text, codes in causes]} if causes else None,
        **at.shown(),
    )


def message(evidence: dict, causes: list) -> str:
    """GD306's message from its evidence and its causes ((words, codes named) pairs)."""
    if causes:
        because = "The evidence points to: " + "; ".join(
            text + (f" ({'/'.join(codes)})" if codes else "") for text, codes in causes) + "."
    else:
        because = _LOOK_AT_DATA
    if not evidence["meant_to_fall"]:
        kind = "a policy-gradient" if evidence.get("policy") else "an adversarial"
        because += f" This is {kind} loss, which is not meant to fall steadily, {_INFO_ONLY}"
    return f"{stalled(evidence)} {because}"


def stalled(evidence: dict) -> str:
    """What GD306 observed, from its evidence: the sentence its message starts with."""
    trend_text = "rose" if evidence["trend"] == "rose" else "stayed flat"
    window = evidence["window"]
    return (f"The loss {trend_text} over {evidence['steps']} optimizer steps (median {evidence['median_first']:.4g} "
            f"over the first {window}, {evidence['median_last']:.4g} over the last {window}; step-to-step noise "
            f"{evidence['noise']:.2g}).")


def stall_causes(stats, tracks: list) -> list[tuple[str, tuple[str, ...]]]:
    """What explains a stalled loss, each cause in words with the codes it names: the optimizer's steps
    (no gradient, lr 0 or decayed to ~0, ratio), vanishing, the loop."""
    opts = stats.options
    causes: list[tuple[str, tuple[str, ...]]] = []
    if tracks and all(t.on_every_measured_step(t.no_grad_steps) for t in tracks):
        causes.append(("no parameter has a gradient when the optimizer steps", ("GD104", "GD202")))
    elif tracks and all(t.on_every_measured_step(t.zero_grad_steps + t.no_grad_steps) for t in tracks):
        causes.append(("every gradient is exactly zero", ("GD111",)))
    if tracks and all(t.lr_zero_steps == t.steps for t in tracks):
        causes.append(("the learning rate is 0", ()))
    else:
        decayed = _decayed_schedule(tracks)
        if decayed:
            return [(decayed, ())]  # the steps after it change nothing: no other measurement means more
    for t in tracks:
        ratios = sorted(r for r, _ in t.ratios if r > 0)
        if ratios and ratios[len(ratios) // 2] < opts.ratio_low:
            causes.append((f"the learning rate {t.max_lr:g} is too small to move the weights", ("GD305",)))
            break
        if ratios and ratios[len(ratios) // 2] > opts.ratio_high:
            causes.append((f"the learning rate {t.max_lr:g} is so large that each step rewrites the weights",
                           ("GD305",)))
            break
    vanishing, _ = slow_updates(stats, vanishing_layers(stats))
    if vanishing:
        names = [stats.layer_name(k) for k in vanishing[:3]]
        causes.append((f"vanishing gradients in {name_list(names)}", ("GD304",)))
    loop_causes = stats.session.consult(stats.loop, lambda loop: loop.stall_evidence(), [])
    causes.extend((text.removesuffix(f" ({code})"), (code,)) for text, code in loop_causes)
    return causes


def _decayed_schedule(tracks: list) -> str:
    """The learning rate schedule that brought the rate to ~0 for the last quarter of the steps or more, in words."""
    for t in tracks:
        if t.lr_low_from is not None and t.steps - t.lr_low_from + 1 >= max(2, t.steps // 4):
            return (f"the learning rate schedule brought the rate down to {t.lr_low_value:.2g} (from {t.max_lr:g}) "
                    f"by optimizer step {t.lr_low_from} of {t.steps}: the steps after it barely move the weights "
                    "(check the scheduler's decay: gamma, step_size, or the total steps it was built for)")
    return ""


def _layers_without_gradient(stats, optimizer: int) -> bool:
    """Whether the optimizer holds trainable layers that never received a gradient (a GD104)."""
    layout = stats._layouts.get(optimizer)
    if layout is None:
        return False
    trainable = {layout.layer_of[i] for i, p in enumerate(layout.params) if p.requires_grad}
    return any(not stats.layers[layout.layer_keys[i]].has_grad for i in trainable)
