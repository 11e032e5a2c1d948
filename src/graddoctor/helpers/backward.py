"""`safe_backward`: backward, unscale, clip, step and zero_grad in the right order, skipping bad batches."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import torch

from graddoctor.helpers.loss import check_trainable
from graddoctor.helpers.stepping import finish_step, loss_is_finite

__all__ = ["BackwardResult", "safe_backward"]


@dataclass(frozen=True)
class BackwardResult:
    """What one `safe_backward` call did.

    `stepped`: the optimizer stepped on this call. `skipped`: this call's batch
    was dropped (its loss was not finite), or the step it completed was dropped
    (the gradients were not finite; the whole accumulation group is lost then).
    `grad_norm`: the total gradient norm before clipping, on calls that
    completed an accumulation group. `pending`: batches accumulated towards the
    next step. `steps`/`skipped_batches`/`skipped_steps`: running totals for
    this optimizer.
    """

    stepped: bool
    skipped: bool
    grad_norm: float | None
    reason: str | None
    pending: int
    steps: int
    skipped_batches: int
    skipped_steps: int


@dataclass
class _Progress:
    accumulate: int
    pending: int = 0
    steps: int = 0
    skipped_batches: int = 0
    skipped_steps: int = 0


_progress: "weakref.WeakKeyDictionary[torch.optim.Optimizer, _Progress]" = weakref.WeakKeyDictionary()


def safe_backward(
    loss: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    *,
    scaler: torch.amp.GradScaler | None = None,
    clip_norm: float | None = None,
    accumulate: int = 1,
) -> BackwardResult:
    """Backward on `loss`, and every `accumulate` calls unscale, clip, step and zero_grad.

    - The loss must be a differentiable scalar (`check_loss` raises otherwise).
    - With `accumulate=k` the loss is divided by k, so k calls give the
      gradient of the mean loss, and the optimizer steps on every k-th call.
    - A batch whose loss is NaN/Inf is skipped before backward (the group's
      other batches are kept). When the gradients are not finite at step time
      the step is skipped and the gradients of every param group are cleared.
      With a `torch.amp.GradScaler`, the scaler decides the skip (and backs its
      scale off), as it should.
    - Clipping (`clip_norm`, total 2-norm) happens after `scaler.unscale_`, so
      it sees real gradient values.

    It calls `optimizer.zero_grad()` itself, after each step: do not clear
    gradients in between, or the accumulated ones are lost. The running counts
    live with the optimizer (weakly), so call it with the same `accumulate`
    every time for that optimizer.

    >>> import torch
    >>> from graddoctor import safe_backward
    >>> torch.manual_seed(0) and None
    >>> model = torch.nn.Linear(3, 1)
    >>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
    >>> x, y = torch.randn(8, 3), torch.randn(8, 1)
    >>> result = safe_backward(torch.nn.functional.mse_loss(model(x), y), opt)
    >>> result.stepped, result.skipped
    (True, False)
    >>> result = safe_backward(torch.nn.functional.mse_loss(model(x), y) * float("nan"), opt)
    >>> result.stepped, result.skipped, result.skipped_batches
    (False, True, 1)
    """
    if not isinstance(accumulate, int) or accumulate < 1:
        raise ValueError(f"safe_backward(accumulate={accumulate!r}): give a whole number of batches, at least 1")
    if clip_norm is not None and not clip_norm > 0:
        raise ValueError(f"safe_backward(clip_norm={clip_norm!r}): give a positive norm, or None for no clipping")
    progress = _progress.get(optimizer)
    if progress is None or progress.accumulate != accumulate:
        progress = _progress[optimizer] = _Progress(accumulate, pending=progress.pending if progress else 0)

    check_trainable(loss)
    if not loss_is_finite(loss):
        progress.skipped_batches += 1
        return _result(progress, stepped=False, skipped=True, norm=None, reason="loss is not finite")

    scaled = loss / accumulate if accumulate > 1 else loss
    if scaler is not None:
        scaled = scaler.scale(scaled)
    scaled.backward()
    progress.pending += 1
    if progress.pending < accumulate:
        return _result(progress, stepped=False, skipped=False, norm=None, reason=None)

    group = progress.pending
    progress.pending = 0
    outcome = finish_step(optimizer, scaler, clip_norm)
    if outcome.stepped:
        progress.steps += 1
        return _result(progress, stepped=True, skipped=False, norm=outcome.grad_norm, reason=None)
    progress.skipped_steps += 1
    progress.skipped_batches += group
    return _result(progress, stepped=False, skipped=True, norm=outcome.grad_norm, reason="gradients are not finite")


def _result(progress: _Progress, *, stepped: bool, skipped: bool, norm: float | None, reason: str | None) -> BackwardResult:
    return BackwardResult(
        stepped=stepped,
        skipped=skipped,
        grad_norm=norm,
        reason=reason,
        pending=progress.pending,
        steps=progress.steps,
        skipped_batches=progress.skipped_batches,
        skipped_steps=progress.skipped_steps,
    )
