"""Turn what LayerStats measured into findings: GD204 and GD301-GD306.

Judged once, at the end, on the whole observed run, so that one noisy step
does not make a finding and each finding names the step where it began.
"""

from __future__ import annotations

import math

from graddoctor.finding import Finding, Related, Severity
from graddoctor.graph.phrases import name_list, plural
from graddoctor.locate import Location
from graddoctor.rules import make


def numerics_findings(stats) -> list[Finding]:
    out: list[Finding] = []
    opts = stats.options
    bad_grad_first = stats.first_bad_grad is not None and (
        stats.first_bad_loss is None or stats.first_bad_grad[0] < stats.first_bad_loss[0])
    if stats.first_bad_loss is not None and not bad_grad_first:  # else the NaN weights explain the loss
        step, where, value = stats.first_bad_loss
        at, related = _loss_place(stats, where)
        at, related, made = _with_origin(stats, at, related)
        out.append(make(
            "GD301",
            f"The loss was {value} at optimizer step {step}, the first non-finite loss of the run; "
            f"every gradient and every update after it is NaN too.{made}",
            step=step, related=related, **at.shown(),
        ))
    if stats.first_bad_grad is not None:
        step, where, layers, params = stats.first_bad_grad
        if bad_grad_first:
            at, related, made = _with_origin(stats, where, [])
            out.append(make(
                "GD302",
                f"Gradients became non-finite at optimizer step {step} while the loss was finite; going "
                f"backward from the loss, {layers[0]} is the first layer with NaN/Inf gradients "
                f"(the layers before it inherit them).{made}",
                subjects=params, step=step, related=related, **at.shown(),
            ))
    out.extend(_exploding(stats, opts))
    out.extend(_vanishing(stats, opts))
    for key, track in stats.optimizers.items():
        out.extend(_step_without_effect(stats, track))
        out.extend(_update_ratio(stats, track, opts))
    out.extend(_not_decreasing(stats, opts))
    return out


def _loss_place(stats, backward: Location) -> tuple[Location, list[Related]]:
    """The line that computed the loss (known from deep mode), else the backward line."""
    loss = stats.loss_line(backward)
    if loss is None or not loss.file or (loss.file, loss.line) == (backward.file, backward.line):
        return backward, []
    return loss, _related(backward, "backward() is called on it here")


def _with_origin(stats, at: Location, related: list[Related]) -> tuple[Location, list[Related], str]:
    """Name the forward op that made the first NaN/Inf, when the escalated deep step found it.

    That op is the line to fix (a log of 0, a division by 0), so the message names it and it
    comes first among the related lines. The finding itself stays where SPEC puts it (the
    loss line for GD301, the backward line for GD302): tools and tests outside key on that
    location, and the origin is found a step later, not on the step the finding reports.
    """
    origin = _nan_origin(stats)
    if origin is None or origin.location is None or not origin.location.file:
        return at, related, ""
    shown = origin.location.shown()
    made = (f" In optimizer step {origin.step}, the first NaN/Inf ({origin.value}) of the forward pass was made "
            f"by `{origin.op}` at {shown['file']}:{shown['line']}{origin.called_from()}, from finite inputs: "
            "fix it there.")
    if (at.file, at.line) == (origin.location.file, origin.location.line):
        return at, related, made
    first = Related(shown["file"], shown["line"], f"first NaN/Inf made here by `{origin.op}`")
    return at, [first] + [r for r in related if (r.file, r.line) != (first.file, first.line)], made


def _nan_origin(stats):
    for observer in getattr(stats.session, "observers", ()):
        find = getattr(observer, "nan_origin", None)
        if find is not None and not getattr(observer, "_graddoctor_failed", False):
            found = find()
            if found is not None:
                return found
    return None


def _related(loc: Location, note: str) -> list[Related]:
    if not loc.file:
        return []
    shown = loc.shown()
    return [Related(shown["file"], shown["line"], note)]


def _exploding(stats, opts) -> list[Finding]:
    if not stats.norms_first:
        return []
    first = sorted(stats.norms_first)[len(stats.norms_first) // 2]
    grew = stats.worst is not None and first > 0 and stats.worst[0] / first >= opts.explode_growth
    if grew:
        worst, step, top = stats.worst
    elif stats.worst_first is not None:
        worst, step, top = stats.worst_first
    else:
        return []
    top = [stats.layer_name(k) for k in top]
    why = (f"{worst:.3g}, {worst / first:.3g} times the {first:.3g} of the first steps" if grew
           else f"{worst:.3g}, above the threshold {opts.explode_norm:.3g}")
    return [make(
        "GD303",
        f"The total gradient norm reached {why} (optimizer step {step}); largest in {name_list(top)}.",
        subjects=top, step=step, **stats.last_backward.shown(),
    )]


def _vanishing(stats, opts) -> list[Finding]:
    low = [stats.layer_name(k) for k, t in stats.layers.items() if t.judged >= 3 and t.vanishing * 2 >= t.judged]
    if not low:
        return []
    return [make(
        "GD304",
        f"{name_list(low)} ({plural(len(low), 'layer')}) get gradients more than "
        f"{1 / opts.vanish_ratio:.0e} times smaller (per element) than most other layers on most steps: "
        "they barely train.",
        subjects=low, **stats.last_backward.shown(),
    )]


def _step_without_effect(stats, track) -> list[Finding]:
    if track.steps < 3:
        return []
    measured = [r for r, _ in track.ratios]
    if track.lr_zero_steps == track.steps:
        reason = "the learning rate of every parameter group is 0"
    elif track.no_grad_steps == track.steps:
        reason = "no parameter it holds had a gradient (.grad is None) when it stepped"
    elif track.zero_grad_steps + track.no_grad_steps == track.steps and track.zero_grad_steps:
        reason = "every gradient it saw was exactly zero"
    elif measured and all(r == 0.0 for r in measured):
        reason = "the parameters were unchanged after every measured step"
    else:
        return []
    if _loop_saw(stats, "GD202") and "gradient" in reason:
        return []  # the zero_grad before step explains it, with a better line
    return [make(
        "GD204",
        f"The optimizer stepped {plural(track.steps, 'time')} but changed nothing: {reason}.",
        step=0, **track.where.shown(),
    )]


def _update_ratio(stats, track, opts) -> list[Finding]:
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


def _not_decreasing(stats, opts) -> list[Finding]:
    if stats.loss_steps < opts.stall_steps or len(stats.loss_first) < 4:
        return []
    q = max(2, opts.stall_steps // 4)
    first = sum(stats.loss_first[:q]) / q
    last_values = list(stats.loss_last)[-q:]
    last = sum(last_values) / len(last_values)
    if not (math.isfinite(first) and math.isfinite(last)) or abs(first) < 1e-8:
        return []
    if last < first - opts.stall_min_drop * abs(first):
        return []
    trend = "rose" if last > first + opts.stall_min_drop * abs(first) else "stayed flat"
    causes = _stall_causes(stats, opts)
    diverging = last > first + opts.stall_rise * abs(first)
    because = ("The evidence points to: " + "; ".join(causes) + ".") if causes else (
        "Gradients flow and steps change the weights, so look at the data, the labels and the loss function.")
    # A flat loss with healthy gradients and updates is often intended (a GAN, a
    # self-distillation target that moves, RL returns, a loss already at its floor):
    # without a cause or a clear rise it is worth knowing, not a warning.
    severity = None if causes or diverging else Severity.INFO
    at, related = _loss_place(stats, stats.last_backward)
    return [make(
        "GD306",
        f"The loss {trend} over {stats.loss_steps} optimizer steps (mean {first:.4g} over the first {q}, "
        f"{last:.4g} over the last {q}). {because}",
        severity=severity, related=related,
        **at.shown(),
    )]


def _stall_causes(stats, opts) -> list[str]:
    causes = []
    tracks = list(stats.optimizers.values())
    if tracks and all(t.no_grad_steps == t.steps for t in tracks):
        causes.append("no parameter has a gradient when the optimizer steps (GD104/GD202)")
    elif tracks and all(t.zero_grad_steps + t.no_grad_steps == t.steps for t in tracks):
        causes.append("every gradient is exactly zero (GD111)")
    if tracks and all(t.lr_zero_steps == t.steps for t in tracks):
        causes.append("the learning rate is 0")
    for t in tracks:
        ratios = sorted(r for r, _ in t.ratios if r > 0)
        if ratios and ratios[len(ratios) // 2] < opts.ratio_low:
            causes.append(f"the learning rate {t.max_lr:g} is too small to move the weights (GD305)")
            break
        if ratios and ratios[len(ratios) // 2] > opts.ratio_high:
            causes.append(f"the learning rate {t.max_lr:g} is so large that each step rewrites the weights (GD305)")
            break
    vanishing = [stats.layer_name(k) for k, t in stats.layers.items() if t.judged >= 3 and t.vanishing * 2 >= t.judged]
    if vanishing:
        causes.append(f"vanishing gradients in {name_list(vanishing[:3])} (GD304)")
    loop = _loop(stats)
    if loop is not None:
        causes.extend(loop.stall_evidence())
    return causes


def _loop(stats):
    for observer in getattr(stats.session, "observers", ()):
        if hasattr(observer, "stall_evidence") and not getattr(observer, "_graddoctor_failed", False):
            return observer
    return None


def _loop_saw(stats, code: str) -> bool:
    loop = _loop(stats)
    return loop is not None and code in loop.codes_seen()
