"""Judge what a loss reaches: the graph-connectivity codes GD101-GD106, GD110, GD210, GD301.

Two entry points share every rule: `check_loss_value` looks at one loss
(type, shape, finiteness, history); `check_reach` compares what one or more
backward passes reached with the parameters that should train, through the
reach judges of GD104, GD105, GD106 and GD210 (each `rules/<family>/gdNNN_*/judge.py`). `diagnose()`
calls both once; a watched run calls the first per backward and the second on
what all observed backward passes reached together.
"""

from __future__ import annotations

from collections.abc import Iterable
from numbers import Number

import torch

from graddoctor.finding import Finding, Related
from graddoctor.graph.naming import ModelIndex
from graddoctor.graph.phrases import related_at
from graddoctor.graph.readable import has_values
from graddoctor.graph.walk import GraphTrace, trace
from graddoctor.locate import Location
from graddoctor.rules import make
from graddoctor.rules.graph.gd101_loss_is_python_number.judge import is_number_cut, number_loss
from graddoctor.rules.graph.gd104_parameter_without_gradient.judge import without_gradient
from graddoctor.rules.graph.gd105_unregistered_parameter.judge import unregistered_parameters
from graddoctor.rules.graph.gd106_parameter_not_in_optimizer.judge import parameters_not_in_optimizer
from graddoctor.rules.loop.gd210_frozen_parameter_in_optimizer.judge import frozen_in_optimizer
from graddoctor.session.registry import OptimizerRecord


def describe_value(value: object) -> str:
    """What a non-tensor loss is, in a few words (never its full repr)."""
    if isinstance(value, bool):
        return f"a Python bool ({value})"
    if isinstance(value, Number):
        return f"a Python {type(value).__name__} ({value!r})"
    module = type(value).__module__
    if module.startswith("numpy"):
        shape = getattr(value, "shape", None)
        return f"a numpy {type(value).__name__}" + (f" of shape {shape}" if shape else "")
    if isinstance(value, (list, tuple)):
        return f"a Python {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__}"


def tensor_summary(t: torch.Tensor) -> str:
    return f"shape {tuple(t.shape)}, dtype {str(t.dtype).replace('torch.', '')}, device {t.device}"


def check_loss_value(
    loss: object,
    where: Location,
    step: int | None = None,
    *,
    finiteness: bool = True,
    cuts: list | None = None,
    walk=trace,
) -> tuple[list[Finding], GraphTrace | None]:
    """Findings about the loss itself, and the graph walked from it (None if it has none).

    `cuts` are what deep mode recorded on the way to this loss (Session.cuts): with
    them a loss without history is blamed on the line that cut it.
    """
    at = where.shown()
    if not isinstance(loss, torch.Tensor):
        return [
            make(
                "GD101",
                f"The loss is {describe_value(loss)}, not a tensor: it has no autograd "
                "history, so no gradient can flow from it to the parameters.",
                step=step,
                evidence={"loss_type": type(loss).__name__},
                **at,
            )
        ], None

    findings: list[Finding] = []
    if loss.numel() != 1:
        findings.append(
            make(
                "GD103",
                f"The loss has {loss.numel()} elements ({tensor_summary(loss)}); backward() "
                "needs a single number, and PyTorch raises \"grad can be implicitly created "
                "only for scalar outputs\".",
                hint=(
                    "Reduce it before backward(): `loss.mean().backward()` (or `.sum()`); with a "
                    "criterion built with `reduction='none'`, reduce its result."
                ),
                step=step,
                evidence={"loss_elements": loss.numel(), "loss_shape": list(loss.shape)},
                **at,
            )
        )
    if finiteness and has_values(loss) and (loss.is_floating_point() or loss.is_complex()):
        with torch.no_grad():
            bad = int((~torch.isfinite(loss.detach())).sum())
        if bad:
            what = "NaN" if bool(torch.isnan(loss.detach()).any()) else "infinite"
            findings.append(
                make(
                    "GD301",
                    f"The loss is {what}" + (f" in {bad} of {loss.numel()} elements" if loss.numel() > 1 else "")
                    + (f" at step {step}" if step is not None else "") + ".",
                    step=step,
                    **at,
                )
            )
    if loss.grad_fn is None:
        if loss.requires_grad:
            return findings, GraphTrace(nodes=1, leaves=[loss], leaf_ids={id(loss)})
        findings.append(cut_history(cuts or [], where, step) or _no_history(loss, at, step))
        return findings, None
    return findings, walk(loss)


def cut_history(cuts: list, backward: Location, step: int | None) -> Finding | None:
    """GD110 when a cut on the way to the loss ran with grad mode off, GD101 when the last cut
    made a Python number (`.item()`, `.tolist()`), else GD102 at the cut."""
    located = [c for c in cuts if c.location is not None and c.location.file]
    if not located:
        return None
    back = related_at(backward, "backward() called here")
    grad_off = [c for c in located if c.grad_off]
    if grad_off:
        cut = grad_off[0]
        at = cut.region_entry if cut.region_entry is not None and cut.region_entry.file else cut.location
        return make(
            "GD110",
            f"The loss was computed with gradient recording off: {cut.region_how} was in force at "
            f"{cut.location}, so the loss has no autograd history and backward() cannot reach any parameter.",
            related=related_at(cut.location, "computed without gradient recording here") + back,
            step=step,
            evidence={"loss_grad_fn": None, "cut": cut.kind, "cut_op": cut.op, "cut_calls": cut.count},
            **at.shown(),
        )
    # A freeze explains a graph-less loss only when no op cut it: frozen parameters upstream of
    # a detach() are not why the trainable ones lost their path.
    cut = ([c for c in located if c.kind != "frozen"] or located)[-1]
    if is_number_cut(cut):
        return number_loss(cut, back, step)
    return make(
        "GD102",
        f"Every path from the parameters to the loss was cut: the value {cut.what()} here"
        f"{cut.aftermath()}, so the loss has no grad_fn and backward() cannot reach any parameter.",
        hint=cut.hint(),
        related=cut.related() + back,
        step=step,
        evidence={"loss_grad_fn": None, "cut": cut.kind, "cut_op": cut.op, "cut_calls": cut.count},
        **cut.location.shown(),
    )


def _no_history(loss: torch.Tensor, at: dict, step: int | None) -> Finding:
    if loss.is_inference():
        return make(
            "GD110",
            "The loss was computed under torch.inference_mode(): it is an inference tensor "
            "with no autograd history, so backward() cannot reach any parameter.",
            step=step,
            evidence={"loss_grad_fn": None, "loss_is_inference": True},
            **at,
        )
    if not torch.is_grad_enabled():
        return make(
            "GD110",
            "The loss has no grad_fn and gradient recording is off here (inside "
            "torch.no_grad() or set_grad_enabled(False)): it was computed without autograd "
            "history.",
            step=step,
            evidence={"loss_grad_fn": None, "grad_enabled": False},
            **at,
        )
    return make(
        "GD102",
        "The loss does not require grad and has no grad_fn: every path from the parameters "
        "to it was cut (by detach(), .data, a numpy or .item() round trip, torch.tensor(...) "
        "re-wrapping, a non-differentiable op such as argmax or a comparison, or a forward "
        "pass run under torch.no_grad()).",
        step=step,
        evidence={"loss_grad_fn": None, "loss_requires_grad": False},
        **at,
    )


def check_reach(
    index: ModelIndex,
    optimizers: list[OptimizerRecord],
    reached: set[int],
    where: Location,
    *,
    judge: Iterable[torch.Tensor] | None = None,
    step: int | None = None,
    related: list[Related] | None = None,
    cuts: list | None = None,
    held_before: set[int] = frozenset(),
) -> list[Finding]:
    """GD104/GD105/GD106/GD210 from the set of leaf ids that backward passes reached.

    `judge` are the parameters that should have got a gradient; by default the
    trainable parameters of the optimizers, or of the models when there is no
    optimizer. `cuts` (deep mode) are the cuts whose output reached the loss:
    parameters that fed one are reported at that cut, the rest at `where`. `held_before` are
    the ids of parameters that an optimizer since freed held (a teacher trained in a first
    phase by an optimizer the script dropped): they were in an optimizer.
    """
    findings: list[Finding] = []
    in_optimizer: set[int] = set(held_before)
    for record in optimizers:
        in_optimizer |= record.param_ids()
    if judge is None:
        judge = _default_judged(index, optimizers)

    findings.extend(without_gradient(index, judge, reached, where, step, related, cuts or []))
    findings.extend(unregistered_parameters(index, reached, in_optimizer, where, step))
    if optimizers:
        findings.extend(parameters_not_in_optimizer(index, optimizers, reached, in_optimizer, step))
    for record in optimizers:
        findings.extend(frozen_in_optimizer(index, record, step))
    return findings


def _default_judged(index: ModelIndex, optimizers: list[OptimizerRecord]) -> list[torch.Tensor]:
    if optimizers:
        seen: set[int] = set()
        out = []
        for record in optimizers:
            for p in record.params():
                if id(p) not in seen:
                    seen.add(id(p))
                    out.append(p)
        return out
    return index.trainable()
