"""GD104 parameter-without-gradient: trainable parameters the loss never reached.

When the cut that separated them ran with grad mode off, the finding is GD110's
(`gd110_grad_mode_off.py`), as SPEC has it for a loss without graph.

Two ways to see it: at the end of a run, the judged parameters that no observed
backward pass reached (grouped by the deep-mode cut that separated them from the
loss, when one did); and at once, when user code reads `.grad` of such a
parameter and gets None (`grad_is_none_here`, which also tells apart the two
other reasons a `.grad` is None).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch

from graddoctor.finding import Finding, Related, Severity
from graddoctor.graph.naming import ModelIndex
from graddoctor.graph.phrases import group_by_module, name_list, plural, related_at
from graddoctor.rules.graph.gd101_loss_is_python_number.judge import is_number_cut, number_path
from graddoctor.provenance.records import CHECKPOINT_INPUT, FROZEN
from graddoctor.rules.graph.gd110_grad_mode_off.judge import grad_off_path
from graddoctor.rules.graph.gd113_checkpoint_input_without_grad.judge import checkpoint_without_grad
from graddoctor.locate import Location
from graddoctor.rules import make


def without_gradient(
    index: ModelIndex, judge, reached: set[int], where: Location, step: int | None,
    related: list[Related] | None, cuts: list,
) -> list[Finding]:
    """One GD104 per cut (or one for the parameters no cut explains) among `judge` not in `reached`."""
    out: list[Finding] = []
    judge = list(judge)
    missing = [p for p in judge if p.requires_grad and id(p) not in reached]
    # The loss reached no judged parameter: a number cut behind it means the loss itself was
    # rebuilt from numbers (SPEC: GD101), not that one path was cut.
    none_reached = not any(id(p) in reached for p in judge)
    for cut, params in _by_cut(missing, cuts):
        found = _without_gradient(index, params, where, step, related, cut, whole_loss=none_reached)
        out.append(found.with_(evidence={**_measured(params, cut), **found.evidence}))
    return out


def _share_of_models(index: ModelIndex, params: list[torch.Tensor]) -> float:
    """The share of the trainable values of the models owning `params` that `params` hold."""
    owners = {index.owner.get(id(p)) for p in params}
    total = sum(p.numel() for pid, p in index.params.items() if index.owner.get(pid) in owners and p.requires_grad)
    mine = sum(p.numel() for p in params)
    return mine / total if total else 1.0


def _measured(params: list[torch.Tensor], cut) -> dict:
    """What the run saw: how many parameters had `grad` None after every observed backward, and the cut."""
    evidence: dict = {"parameters_without_grad": len(params), "elements": sum(p.numel() for p in params)}
    if cut is not None:
        evidence.update(cut=cut.kind, cut_op=cut.op, cut_calls=cut.count, cut_fed_trained_layers=cut.fed_trained)
    return evidence


def _only_a_target(cut) -> bool:
    """The cut froze a value that reached the loss only as a target: never, with grad mode on, an input
    of an op that also took a trainable parameter (a distillation teacher's logits, a target network's
    values). Its parameters are fixed by design; nothing that trains was fed by them."""
    return cut.kind not in (CHECKPOINT_INPUT, FROZEN) and not cut.fed_trained


def _by_cut(missing: list[torch.Tensor], cuts: list) -> list[tuple[object | None, list[torch.Tensor]]]:
    """Group parameters by the cut that separated them from the loss (None: no cut, unused)."""
    located = [c for c in cuts if c.location is not None and c.location.file]
    groups: dict[int, tuple[object | None, list[torch.Tensor]]] = {}
    for p in missing:
        cut = _cause(id(p), located)
        groups.setdefault(id(cut), (cut, []))[1].append(p)
    return list(groups.values())


def _cause(pid: int, cuts: list):
    """The cut on the path from the parameter to the loss meant to train it, if one is known.

    A cut fed by the parameter whose loss drove only other parameters' optimizers is one that
    loss needs (`D(fake.detach())` in a GAN's discriminator step): it is never named. When no
    optimizer stepped after a cut's loss, nothing says whom it trains, and it may be named.
    """
    fed = [c for c in cuts if pid in c.param_ids]
    return (next((c for c in fed if pid in c.trained_ids), None)
            or next((c for c in fed if not c.trained_ids), None))


def _without_gradient(
    index: ModelIndex, missing: list[torch.Tensor], where: Location, step: int | None,
    related: list[Related] | None, cut, whole_loss: bool = False,
) -> Finding:
    names = [index.name(p) for p in missing]
    module_sizes: dict[str, int] = {}
    for pid, mod in index.module_of.items():
        module_sizes[mod] = module_sizes.get(mod, 0) + 1
    module_of = {index.names[id(p)]: index.module_of[id(p)] for p in missing if id(p) in index.names}
    shown = group_by_module(names, module_sizes, module_of)
    phrase = f"{name_list(shown)} ({plural(len(missing), 'trainable parameter')})"
    message = f"{phrase} received no gradient from the loss: their .grad stays None and the optimizer never changes them."
    if cut is None:
        # An unused branch stays an error however small (SPEC: a forgotten auxiliary head is a sliver
        # of a large model); its share of the model is recorded as evidence for the reader.
        share = _share_of_models(index, missing)
        return make("GD104", message, subjects=names, step=step, related=related, evidence={"model_share": share},
                    **where.shown())
    back = related_at(cut.backward or where, "backward() called here")
    if not whole_loss and _only_a_target(cut):
        return _target_only(names, phrase, cut, back, step, related)
    if cut.grad_off:  # SPEC: grad mode off is GD110's, at the line that turned it off
        return grad_off_path(names, phrase, cut, back, step, related)
    if cut.kind == CHECKPOINT_INPUT:
        return checkpoint_without_grad(names, phrase, cut, back, step, related)
    if whole_loss and is_number_cut(cut):
        return number_path(names, phrase, cut, back, step, related)
    message += f" Their path to the loss {cut.what()} at {cut.location}{cut.aftermath()}."
    hint = None
    if cut.kind in ("detach", "data"):
        hint = "Remove the `.detach()` / `.data` on the training path (keep it only where the cut is meant: logging, targets, a GAN's discriminator step)."
    elif cut.kind == "number":
        hint = "Keep tensors as tensors on the training path; call `.item()` / `.tolist()` / `.numpy()` only for logging."
    hint = cut.hint() or hint
    return make(
        "GD104", message, hint=hint, subjects=names, step=step,
        related=cut.related() + back + list(related or []), **cut.location.shown(),
    )


def _target_only(names: list[str], phrase: str, cut, back: list[Related], step: int | None,
                 related: list[Related] | None) -> Finding:
    """Parameters behind a value used only as a target: worth knowing (they sit in an optimizer for
    nothing), not an error. GD110 when grad mode was off there, as for any grad-off cut."""
    code = "GD110" if cut.grad_off else "GD104"
    at = cut.region_entry if cut.grad_off and cut.region_entry is not None and cut.region_entry.file else cut.location
    return make(
        code,
        f"{phrase} get no gradient, by design it seems: what they compute {cut.what()} at {cut.location} and "
        "reached the loss only as a target (compared with the trained outputs, never fed to a layer that "
        "trains), like a distillation teacher or a target network. The optimizer holds them but never "
        "changes them.",
        hint="If they are meant to stay fixed, freeze them (`requires_grad_(False)`) and leave them out of "
             "the optimizer; if they should train, compute their part of the loss with gradient recording on.",
        severity=Severity.INFO, subjects=names, step=step,
        related=cut.related() + back + list(related or []), **at.shown(),
    )


def grad_is_none_here(
    where: Location, attr: str, first_backward: Location | None, zero_grads: Sequence,
    unreached: Callable[[], list[str]],
) -> Finding:
    """User code used `.grad.<attr>` and the gradient was None: which of the three reasons it is."""
    if first_backward is None:
        case = (
            f"No backward() has run yet, so every .grad is still None when `.grad.{attr}` is used."
        )
        hint = "Call loss.backward() before using .grad, or guard with `if p.grad is not None:`."
    elif zero_grads and all(
        e.kwargs.get("set_to_none", e.args[0] if e.args else True) for e in zero_grads
    ):
        last = zero_grads[-1].where
        case = (
            f"zero_grad() at {last} set the gradients to None (its default since torch 2.0), and "
            f"`.grad.{attr}` runs after it, before the next backward()."
        )
        hint = (
            "Read or edit gradients between backward() and zero_grad(), guard with `if p.grad is not None:`, "
            "or call `zero_grad(set_to_none=False)` if you need zero tensors."
        )
    else:
        missing = unreached()
        shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
        case = (
            "backward() has run, but the loss does not reach some parameters"
            + (f" ({shown})" if shown else "")
            + f", so their .grad stays None and `.grad.{attr}` fails on them."
        )
        hint = (
            "Find why the loss does not reach them (unused layer, detach(), no_grad) or skip "
            "parameters whose .grad is None."
        )
    fields = where.shown() if where.file else {}
    evidence = {"grad_is_none": True, "attribute": attr, "backward_ran": first_backward is not None,
                "zero_grads_since_backward": len(zero_grads)}
    return make("GD104", f"`.grad` is None here. {case}", hint=hint, evidence=evidence, **fields)
