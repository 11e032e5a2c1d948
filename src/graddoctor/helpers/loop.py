"""`train_one_epoch`: a reference training loop with every optional piece in the right order."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from graddoctor.helpers.loss import check_trainable
from graddoctor.helpers.stepping import finish_step, loss_is_finite

__all__ = ["EpochResult", "train_one_epoch"]

# Schedulers whose schedule is defined in optimizer steps, not epochs.
_PER_STEP_SCHEDULERS = (torch.optim.lr_scheduler.OneCycleLR, torch.optim.lr_scheduler.CyclicLR)


@dataclass
class EpochResult:
    """What `train_one_epoch` did: `mean_loss` (over batches with a finite loss), counts, gradient norms."""

    mean_loss: float
    batches: int
    steps: int
    skipped_batches: int
    skipped_steps: int
    grad_norms: list[float] = field(default_factory=list)


def train_one_epoch(
    model: nn.Module,
    loader: Iterable[Any],
    loss_fn: Callable[..., torch.Tensor],
    optimizer: torch.optim.Optimizer,
    *,
    scheduler: Any = None,
    scheduler_interval: str | None = None,
    accumulate: int = 1,
    clip_norm: float | None = None,
    scaler: torch.amp.GradScaler | None = None,
    autocast_dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> EpochResult:
    """Train `model` for one pass over `loader`, in the order that keeps gradients correct.

    Each batch is `(inputs..., target)` (moved to `device`, by default the
    model's); the loss is `loss_fn(model(*inputs), target)`. Per batch:
    forward (under `torch.autocast` when `autocast_dtype` is given) -> loss /
    group size -> backward (through `scaler.scale` when a GradScaler is given);
    per optimizer step: `scaler.unscale_` -> clip to `clip_norm` -> step ->
    `scaler.update` -> `zero_grad` -> per-step scheduler.

    - `accumulate=k`: one step per k batches, each loss divided by k; a last
      partial group of r batches is divided by r (when `len(loader)` is
      unknown, its gradients are rescaled by k/r), so every step uses the mean
      gradient of its group, and it still steps.
    - Batches with a NaN/Inf loss are skipped before backward; a step whose
      gradients are not finite is skipped and all gradients cleared (with a
      scaler, the scaler decides, and backs its scale off).
    - `scheduler_interval`: "step" or "epoch"; by default "step" for OneCycleLR
      and CyclicLR and "epoch" for the others. ReduceLROnPlateau is given the
      epoch's mean loss. A per-step scheduler only steps after a real step.
    - Gradients left over from before the call are cleared first.
    - The model is put in train mode and every module's previous mode is
      restored afterwards, also on error.
    - `mean_loss` is the mean of `loss.item()` values: no graph outlives its batch.

    >>> import torch
    >>> from graddoctor import train_one_epoch
    >>> torch.manual_seed(0) and None
    >>> model = torch.nn.Linear(4, 1)
    >>> data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(5)]
    >>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
    >>> result = train_one_epoch(model, data, torch.nn.functional.mse_loss, opt, accumulate=2)
    >>> result.batches, result.steps
    (5, 3)
    """
    if not isinstance(accumulate, int) or accumulate < 1:
        raise ValueError(f"train_one_epoch(accumulate={accumulate!r}): give a whole number of batches, at least 1")
    interval = _interval(scheduler, scheduler_interval)
    device = torch.device(device) if device is not None else _model_device(model)
    total_batches = _length(loader)
    modes = {module: module.training for module in model.modules()}
    model.train()
    losses: list[float] = []
    result = EpochResult(mean_loss=math.nan, batches=0, steps=0, skipped_batches=0, skipped_steps=0)
    pending = 0  # batches backpropagated into the current group
    divisor = accumulate  # what the current group's losses are divided by
    group_start = 0  # index of the first batch of the current group
    try:
        optimizer.zero_grad(set_to_none=True)
        for index, batch in enumerate(loader):
            result.batches += 1
            if index == group_start:
                divisor = _group_size(group_start, accumulate, total_batches)
            *inputs, target = _to(batch, device)
            with _autocast(device, autocast_dtype):
                loss = loss_fn(model(*inputs), target)
            check_trainable(loss)
            if not loss_is_finite(loss):
                result.skipped_batches += 1
            else:
                losses.append(loss.item())
                scaled = loss / divisor if divisor > 1 else loss
                (scaler.scale(scaled) if scaler is not None else scaled).backward()
                pending += 1
            del loss
            if (index + 1 - group_start) == accumulate:
                _finish(result, optimizer, scaler, clip_norm, scheduler, interval, pending, divisor)
                pending, group_start = 0, index + 1
        if pending:  # the last, partial group
            _finish(result, optimizer, scaler, clip_norm, scheduler, interval, pending, divisor)
        result.mean_loss = sum(losses) / len(losses) if losses else math.nan
        if scheduler is not None and interval == "epoch":
            if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
                scheduler.step(result.mean_loss)
            else:
                scheduler.step()
    finally:
        for module, training in modes.items():
            module.training = training
    return result


def _finish(
    result: EpochResult,
    optimizer: torch.optim.Optimizer,
    scaler: torch.amp.GradScaler | None,
    clip_norm: float | None,
    scheduler: Any,
    interval: str | None,
    pending: int,
    divisor: int,
) -> None:
    if not pending:  # every batch of the group was skipped: nothing to step on
        return
    if pending != divisor:
        # Fewer batches than planned (skipped ones, or a short last group of a loader
        # without len()): rescale so the step still uses the mean gradient of its group.
        with torch.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        p.grad.mul_(divisor / pending)
    outcome = finish_step(optimizer, scaler, clip_norm)
    if outcome.grad_norm is not None:
        result.grad_norms.append(outcome.grad_norm)
    if outcome.stepped:
        result.steps += 1
        if scheduler is not None and interval == "step":
            scheduler.step()
    else:
        result.skipped_steps += 1


def _group_size(group_start: int, accumulate: int, total: int | None) -> int:
    if total is None:
        return accumulate
    return max(1, min(accumulate, total - group_start))


def _interval(scheduler: Any, interval: str | None) -> str | None:
    if interval not in (None, "step", "epoch"):
        raise ValueError(f"train_one_epoch(scheduler_interval={interval!r}): choose 'step' or 'epoch'")
    if scheduler is None:
        return None
    if interval is None:
        return "step" if isinstance(scheduler, _PER_STEP_SCHEDULERS) else "epoch"
    if interval == "step" and isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
        raise ValueError("train_one_epoch: ReduceLROnPlateau needs a metric, so it steps once per epoch")
    return interval


def _model_device(model: nn.Module) -> torch.device:
    for tensor in model.parameters():
        return tensor.device
    return torch.device("cpu")


def _length(loader: Iterable[Any]) -> int | None:
    try:
        return len(loader)  # type: ignore[arg-type]
    except TypeError:
        return None


def _to(batch: Any, device: torch.device) -> list[Any]:
    if isinstance(batch, Mapping) or not isinstance(batch, (list, tuple)) or len(batch) < 2:
        raise TypeError(
            "train_one_epoch expects each batch to be a tuple or list (inputs..., target); "
            f"got {type(batch).__name__}. Wrap the loader, e.g. ((b['x'], b['y']) for b in loader)."
        )
    return [x.to(device, non_blocking=True) if isinstance(x, torch.Tensor) else x for x in batch]


def _autocast(device: torch.device, dtype: torch.dtype | None) -> contextlib.AbstractContextManager:
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=dtype)
