"""GD303 exploding-gradients: a total gradient norm above a threshold, or grown by orders of magnitude."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.graph.phrases import name_list
from graddoctor.rules import make


def exploding_gradients(stats) -> list[Finding]:
    opts = stats.options
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
