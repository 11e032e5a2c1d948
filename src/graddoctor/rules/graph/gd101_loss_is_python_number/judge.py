"""GD101 loss-is-python-number, at runtime: the loss was built from `.item()` / `.tolist()` numbers.

Deep mode records each `.item()`, `float()`, `.tolist()` or `.numpy()` of a tensor that
requires grad as a cut of kind "number" and follows its values into the tensors rebuilt
from them. When such a cut is why the loss reaches no parameter at all (a loss without
grad_fn, or one rebuilt as a new leaf with `torch.tensor(total, requires_grad=True)`),
SPEC names GD101 at the line that made the number, not GD102 or GD104. A number cut on
one branch only, with the rest of the loss still reaching parameters, stays GD104's.
"""

from __future__ import annotations

from graddoctor.finding import Finding, Related
from graddoctor.rules import make

NUMBER = "number"  # provenance.records.NUMBER; not imported: graph/ does not depend on provenance/

_HINT = ("Keep the loss a tensor from the model's output to backward(): compute it with torch ops "
         "(`torch.stack(losses).mean()` for per-sample losses) and call `.item()` only for logging.")


def is_number_cut(cut) -> bool:
    return cut is not None and getattr(cut, "kind", None) == NUMBER


def number_loss(cut, back: list[Related], step: int | None) -> Finding:
    """The loss has no grad_fn because its values went through `cut` (a Python number)."""
    return make(
        "GD101",
        f"The loss is built from Python numbers: the value {cut.what()} here{cut.aftermath()}, so the "
        "loss has no autograd history and backward() cannot reach any parameter.",
        hint=cut.hint() or _HINT,
        related=cut.related() + back,
        step=step,
        evidence={"loss_grad_fn": None, "cut": cut.kind, "cut_op": cut.op, "cut_calls": cut.count},
        **cut.location.shown(),
    )


def number_path(subjects: list[str], phrase: str, cut, back: list[Related], step: int | None,
                related: list[Related] | None) -> Finding:
    """No parameter got a gradient because the loss was rebuilt from the numbers `cut` made."""
    return make(
        "GD101",
        f"{phrase} received no gradient: the loss is built from Python numbers, since the value "
        f"{cut.what()} at {cut.location}{cut.aftermath()}. Their .grad stays None and the optimizer "
        "never changes them.",
        hint=cut.hint() or _HINT,
        subjects=subjects, step=step, related=cut.related() + back + list(related or []),
        evidence={"parameters_reached": 0, "cut": cut.kind, "cut_op": cut.op, "cut_calls": cut.count},
        **cut.location.shown(),
    )
