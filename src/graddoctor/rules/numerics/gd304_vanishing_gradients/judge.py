"""GD304 vanishing-gradients: layers whose gradients are orders of magnitude below the rest."""

from __future__ import annotations

from graddoctor.finding import Finding
from graddoctor.graph.phrases import name_list, plural
from graddoctor.numerics.places import vanishing_layers
from graddoctor.rules import make


def vanishing_gradients(stats) -> list[Finding]:
    low = vanishing_layers(stats)
    if not low:
        return []
    return [make(
        "GD304",
        f"{name_list(low)} ({plural(len(low), 'layer')}) get gradients more than "
        f"{1 / stats.options.vanish_ratio:.0e} times smaller (per element) than most other layers on most steps: "
        "they barely train.",
        subjects=low, evidence={"vanish_ratio": stats.options.vanish_ratio, "layers": len(low)},
        **stats.last_backward.shown(),
    )]
