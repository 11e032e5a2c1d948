"""One optimizer step done in the right order: unscale, measure, clip, step, update, zero_grad.

Shared by `safe_backward` and `train_one_epoch`, so both skip non-finite
steps the same way and both clear the gradients of every param group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class StepOutcome:
    stepped: bool
    grad_norm: float | None  # total 2-norm of the (unscaled) gradients before clipping


def grads_of(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    """The gradients of every param group (not just the first one)."""
    return [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]


def finish_step(
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler | None,
    clip_norm: float | None,
) -> StepOutcome:
    """Step `optimizer` on the gradients accumulated so far, unless they are not finite.

    With a GradScaler, `scaler.step` makes the skip decision itself (and
    `scaler.update` must run either way so the scale backs off); without one,
    a non-finite gradient skips `optimizer.step()`. The gradients of every
    param group are cleared afterwards in both cases.
    """
    if scaler is not None and scaler.is_enabled():
        scaler.unscale_(optimizer)  # clipping and the norm must see real gradient values
    grads = grads_of(optimizer)
    total = torch.nn.utils.get_total_norm(grads) if grads else None
    norm = float(total) if total is not None else None
    # A total norm can overflow to inf for huge but finite gradients: then look at the values.
    finite = norm is None or math.isfinite(norm) or _all_finite(grads)
    if finite and clip_norm is not None and grads:
        # The same two calls clip_grad_norm_ makes, with the norm we already have.
        torch.nn.utils.clip_grads_with_norm_(_params_with_grad(optimizer), clip_norm, total)
    stepped = False
    if scaler is not None and scaler.is_enabled():
        scaler.step(optimizer)  # skips by itself when the unscaled gradients hold inf/NaN
        scaler.update()
        stepped = finite
    elif finite:
        optimizer.step()
        stepped = True
    optimizer.zero_grad(set_to_none=True)
    return StepOutcome(stepped=stepped, grad_norm=norm)


def _params_with_grad(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [p for group in optimizer.param_groups for p in group["params"] if p.grad is not None]


def _all_finite(grads: list[torch.Tensor]) -> bool:
    return all(bool(torch.isfinite(g).all()) for g in grads)


def loss_is_finite(loss: torch.Tensor) -> bool:
    return bool(torch.isfinite(loss.detach()).all())
