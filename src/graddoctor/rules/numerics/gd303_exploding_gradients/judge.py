"""GD303 exploding-gradients: a total gradient norm grown by orders of magnitude over the run's own first steps.

The scale of a gradient norm depends on the loss (`reduction='sum'` over pixels
and a batch gives norms in the thousands on a healthy VAE), so a norm is only
compared with the same run's first steps. A threshold the user sets
(`explode_norm`) is their own scale; crossing it alone is information.
"""

from __future__ import annotations

from graddoctor.finding import Finding, Severity
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
        why = f"{worst:.3g}, {worst / first:.3g} times the {first:.3g} of the first steps"
        severity = None
        evidence = {"grad_norm": worst, "first_grad_norm": first, "growth": worst / first}
    elif stats.worst_first is not None:
        worst, step, top = stats.worst_first
        why = f"{worst:.3g}, above the threshold explode_norm={opts.explode_norm:.3g} set for this run"
        severity = Severity.INFO
        evidence = {"grad_norm": worst, "first_grad_norm": first, "explode_norm": opts.explode_norm}
    else:
        return []
    top = [stats.layer_name(k) for k in top]
    return [make(
        "GD303",
        f"The total gradient norm reached {why} (optimizer step {step}); largest in {name_list(top)}.",
        subjects=top, step=step, severity=severity, evidence={**evidence, "step": step},
        **stats.last_backward.shown(),
    )]
