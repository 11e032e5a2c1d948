"""`check_loss` and `ensure_tensor_loss`: refuse a loss that cannot train the model, with the reason.

The checks mirror the catalogue (GD101, GD102/GD110, GD301, GD103) but raise at
once instead of reporting, so a broken loss stops the run on the line that made it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import torch
from torch import nn

from graddoctor.errors import (
    GradModeOffError,
    LossIsNumberError,
    LossWithoutGraphError,
    NonFiniteLossError,
    NonScalarLossError,
)
from graddoctor.observers.graph_checks import describe_value, tensor_summary

__all__ = ["check_loss", "ensure_tensor_loss"]

_REDUCTIONS = ("mean", "sum")
_SHOWN_INDICES = 5

F = TypeVar("F", bound=Callable[..., Any])


def check_loss(loss: object, *, what: str = "The loss") -> torch.Tensor:
    """Return `loss` unchanged if backward() on it can train the model; raise otherwise.

    Raises (all subclasses of `graddoctor.GradDoctorError`, each with the
    catalogue `code` of the same mistake):

    - `LossIsNumberError` (GD101): a Python number or numpy value, e.g. the
      result of `.item()`;
    - `GradModeOffError` (GD110): a tensor computed under `torch.no_grad()` or
      `torch.inference_mode()`;
    - `LossWithoutGraphError` (GD102): a tensor whose history was cut;
    - `NonFiniteLossError` (GD301): NaN or infinite values, how many and where;
    - `NonScalarLossError` (GD103): more than one element, with the reduction to use.

    `what` names the loss in the messages (e.g. "The generator loss").

    >>> import torch
    >>> from graddoctor import check_loss
    >>> w = torch.ones(3, requires_grad=True)
    >>> check_loss((w * 2).sum()).shape
    torch.Size([])
    >>> check_loss((w * 2).sum().item())
    Traceback (most recent call last):
    ...
    graddoctor.errors.LossIsNumberError: The loss is a Python float (6.0), not a tensor: ...
    >>> check_loss(w * 2)
    Traceback (most recent call last):
    ...
    graddoctor.errors.NonScalarLossError: The loss has 3 elements (shape (3,), ...
    """
    return _check(loss, what, finite=True)


def check_trainable(loss: object, what: str = "The loss") -> torch.Tensor:
    """`check_loss` without the finiteness test: for callers that skip non-finite batches themselves."""
    return _check(loss, what, finite=False)


def _check(loss: object, what: str, *, finite: bool) -> torch.Tensor:
    if not isinstance(loss, torch.Tensor):
        hint = " (`.item()`, `float()` and `.tolist()` return numbers: keep them for logging)" if _is_number(loss) else ""
        raise LossIsNumberError(
            f"{what} is {_describe(loss)}, not a tensor: it has no autograd history, so no "
            f"gradient can reach the parameters{hint}. Return the tensor itself, e.g. `criterion(out, y)`."
        )
    if loss.grad_fn is None and not loss.requires_grad:
        raise _no_graph(loss, what)
    bad = _non_finite(loss, what) if finite else ""
    if bad:
        raise NonFiniteLossError(bad)
    if loss.numel() != 1:
        raise NonScalarLossError(
            f"{what} has {loss.numel()} elements ({tensor_summary(loss)}); backward() needs a single "
            "number. Reduce it first: `loss.mean()` (what reduction='mean' does, and what keeps the "
            "gradient scale independent of the batch size) or `loss.sum()`; "
            "`ensure_tensor_loss(reduce='mean')` does it for a loss function."
        )
    return loss


def _describe(value: object) -> str:
    if value is None:
        return "None (a function that computes the loss but does not `return` it gives None)"
    if type(value).__module__.startswith("numpy") and getattr(value, "ndim", None) == 0:
        return f"a numpy {type(value).__name__} ({value.item()!r})"  # type: ignore[attr-defined]
    return describe_value(value)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, complex)) or type(value).__module__.startswith("numpy")


def _no_graph(loss: torch.Tensor, what: str) -> LossWithoutGraphError:
    if loss.is_inference():
        return GradModeOffError(
            f"{what} was computed under torch.inference_mode(): it is an inference tensor with no "
            "autograd history. Compute the training forward pass and the loss outside inference_mode()."
        )
    if not torch.is_grad_enabled():
        return GradModeOffError(
            f"{what} has no grad_fn and gradient recording is off here (torch.no_grad() or "
            "set_grad_enabled(False)). Compute the forward pass and the loss with gradients enabled; "
            "only the backward() call may sit inside no_grad."
        )
    return LossWithoutGraphError(
        f"{what} ({tensor_summary(loss)}) has no grad_fn and does not require grad: every path from "
        "the parameters to it was cut, by detach(), .data, a numpy or .item() round trip, "
        "torch.tensor(...) re-wrapping, a non-differentiable op (argmax, round, a comparison, an "
        "integer cast), or a forward pass run under torch.no_grad(). Remove the cut; "
        "`graddoctor.diagnose(loss, model)` names the parameters it strands."
    )


def _non_finite(loss: torch.Tensor, what: str = "The loss") -> str:
    """The message for a loss with NaN/Inf values, or "" when it is finite."""
    if not (loss.is_floating_point() or loss.is_complex()):
        return ""
    with torch.no_grad():
        values = loss.detach()
        finite = torch.isfinite(values)
        if bool(finite.all()):
            return ""
        nans = int(torch.isnan(values).sum())
        infs = int((~finite).sum()) - nans
    kinds = ", ".join(
        part for part in (f"{nans} NaN" if nans else "", f"{infs} infinite" if infs else "") if part
    )
    if loss.numel() == 1:
        first = "NaN" if nans else ("+inf" if float(values.reshape(())) > 0 else "-inf")
        return (
            f"{what} is {first}. Its inputs or an operation in the forward pass overflowed or divided "
            "by zero (log of 0, sqrt of a negative, exp of a large value); check the inputs and the "
            "learning rate, and skip such batches with `safe_backward`."
        )
    where = torch.nonzero(~finite)[:_SHOWN_INDICES].tolist()
    shown = ", ".join(str(tuple(i)) if len(i) > 1 else str(i[0]) for i in where)
    more = " ..." if int((~finite).sum()) > _SHOWN_INDICES else ""
    return (
        f"{what} has {kinds} of {loss.numel()} values (at index {shown}{more}). Find what makes those "
        "samples overflow (bad inputs, log of 0, division by zero) or drop them before reducing."
    )


def ensure_tensor_loss(reduce: str | None | Callable[..., Any] = None) -> Any:
    """Decorator: check what a loss function (or `nn.Module` loss) returns, with `check_loss`.

    With `reduce="mean"` or `"sum"`, a per-sample loss (more than one element)
    is reduced instead of rejected; NaN/Inf values are reported per sample
    before reducing. The wrapped function keeps its name, docstring and
    signature. On an `nn.Module` class, `forward` is wrapped; on an instance, a
    forward hook does the same.

    >>> import torch
    >>> from graddoctor import ensure_tensor_loss
    >>> @ensure_tensor_loss(reduce="mean")
    ... def squared_error(pred, target):
    ...     return (pred - target) ** 2
    >>> pred = torch.zeros(4, requires_grad=True)
    >>> squared_error(pred, torch.ones(4))
    tensor(1., grad_fn=<MeanBackward0>)
    >>> squared_error.__name__
    'squared_error'
    >>> @ensure_tensor_loss()
    ... def logged(pred, target):
    ...     return ((pred - target) ** 2).mean().item()
    >>> logged(pred, torch.ones(4))
    Traceback (most recent call last):
    ...
    graddoctor.errors.LossIsNumberError: The loss returned by logged() is a Python float (1.0), not a tensor: ...
    """
    if callable(reduce) and not isinstance(reduce, str):
        # Used bare, as `@ensure_tensor_loss`.
        return ensure_tensor_loss()(reduce)
    if reduce not in (None, *_REDUCTIONS):
        raise ValueError(f"ensure_tensor_loss(reduce={reduce!r}): choose None, 'mean' or 'sum'")

    def decorate(target: Any) -> Any:
        if isinstance(target, type) and issubclass(target, nn.Module):
            target.forward = _wrap(target.forward, reduce, f"{target.__name__}.forward()")
            return target
        if isinstance(target, nn.Module):
            # An instance (e.g. `nn.MSELoss(reduction="none")`): a forward hook, which travels
            # with deepcopy/state and leaves the class alone.
            label = f"{type(target).__name__}.forward()"
            target.register_forward_hook(lambda module, args, output: _checked(output, reduce, label))
            return target
        if not callable(target):
            raise TypeError(f"ensure_tensor_loss decorates a function or an nn.Module, not {describe_value(target)}")
        name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or "the loss function"
        return _wrap(target, reduce, f"{name.split('<locals>.')[-1]}()")

    return decorate


def _wrap(fn: F, reduce: str | None, label: str) -> F:
    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> torch.Tensor:
        return _checked(fn(*args, **kwargs), reduce, label)

    checked.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return checked  # type: ignore[return-value]


def _checked(loss: object, reduce: str | None, label: str) -> torch.Tensor:
    if reduce is not None and isinstance(loss, torch.Tensor) and loss.numel() != 1:
        if loss.grad_fn is None and not loss.requires_grad:
            raise _no_graph(loss, f"The per-sample loss returned by {label}")
        bad = _non_finite(loss, f"The per-sample loss returned by {label}")
        if bad:
            raise NonFiniteLossError(bad)
        loss = loss.mean() if reduce == "mean" else loss.sum()
    return check_loss(loss, what=f"The loss returned by {label}")
