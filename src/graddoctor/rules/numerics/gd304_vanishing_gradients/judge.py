"""GD304 vanishing-gradients: layers whose gradients are orders of magnitude below the rest.

A warning only when the small gradients show in what the optimizer applied: those layers'
updates are orders of magnitude below the others', or (updates unmeasured) their optimizer
steps in proportion to the gradient (SGD). Small gradients that Adam-style per-element
rescaling turns into ordinary updates are information.
"""

from __future__ import annotations

from graddoctor.finding import Finding, Severity
from graddoctor.graph.phrases import name_list, plural
from graddoctor.numerics.places import slow_updates, vanishing_layers
from graddoctor.rules import make


def vanishing_gradients(stats) -> list[Finding]:
    low = vanishing_layers(stats)
    if not low:
        return []
    slow, measured = slow_updates(stats, low)
    names = [stats.layer_name(k) for k in low]
    evidence = {"vanish_ratio": stats.options.vanish_ratio, "layers": len(low), **measured,
                "slow_layers": [stats.layer_name(k) for k in slow]}
    small = (f"{name_list(names)} ({plural(len(names), 'layer')}) get gradients more than "
             f"{1 / stats.options.vanish_ratio:.0e} times smaller (per element) than most other layers on most steps")
    if slow:
        moved = evidence["update_vs_others"]
        shown = [n for n in evidence["slow_layers"] if n in moved]
        updates = (f"; their updates are {max(moved[n] for n in shown):.1e} of the other layers' or less"
                   if shown else f"; {evidence['optimizers'][0] if evidence['optimizers'] else 'the optimizer'} "
                   "steps in proportion to the gradient")
        return [make("GD304", f"{small}{updates}: they barely train.",
                     subjects=names, evidence=evidence, **stats.last_backward.shown())]
    rescaled = ", ".join(evidence["rescaling"]) or "the optimizer"
    return [make("GD304", f"{small}, but {rescaled} rescales each element and their updates are of the same order "
                 "as the other layers': they train, so this is information only.",
                 subjects=names, evidence=evidence, severity=Severity.INFO, **stats.last_backward.shown())]
