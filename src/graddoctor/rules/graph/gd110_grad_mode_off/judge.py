"""GD110 grad-mode-off, at runtime: part of the forward pass ran with gradient recording off.

The loss still has a graph, but the trainable parameters that fed the part computed
under `torch.no_grad()` (or `inference_mode`, `set_grad_enabled(False)`, a helper
decorated with `@torch.no_grad()`) get no gradient. Deep mode recorded where grad
mode went off; the finding points at that line. (A loss computed entirely with grad
mode off is reported by `observers/graph_checks.py:cut_history`.)
"""

from __future__ import annotations

from graddoctor.finding import Finding, Related
from graddoctor.rules import make


def grad_off_path(subjects: list[str], phrase: str, cut, back: list[Related], step: int | None,
                  related: list[Related] | None) -> Finding:
    """The parameters `subjects` ("all of `encoder`", said by `phrase`) lost their path under `cut`."""
    at = cut.region_entry if cut.region_entry is not None and cut.region_entry.file else cut.location
    shown = cut.location.shown()
    here = [] if (at.file, at.line) == (cut.location.file, cut.location.line) else [
        Related(shown["file"], shown["line"], "computed without gradient recording here")]
    chain = [r for r in cut.related() if "gradient recording turned off" not in r.note]
    return make(
        "GD110",
        f"{phrase} received no gradient from the loss: their path to it ran under {cut.region_how} "
        f"at {cut.location}{cut.aftermath()}, so nothing computed there was recorded, their .grad stays "
        "None and the optimizer never changes them.",
        hint=cut.hint() or (
            f"Run this part of the forward pass with gradient recording on (move it out of {cut.region_how}); "
            "if these parameters are meant to stay frozen, set `requires_grad_(False)` on them and leave "
            "them out of the optimizer."),
        subjects=subjects, step=step, related=here + chain + back + list(related or []), **at.shown(),
        evidence={"cut": cut.kind, "cut_op": cut.op, "cut_calls": cut.count, "region": cut.region_how},
    )
