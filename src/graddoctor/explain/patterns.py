"""Known error messages, each tied to the code that explains it.

The texts are PyTorch's own (torch/csrc/autograd and torch/_tensor.py), matched
loosely enough to survive small wording changes between releases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorPattern:
    code: str
    regex: re.Pattern
    cause: str  # what happened, in plain words; may use {groups}
    hint: str | None = None  # the fix when it differs from the rule's default
    exc_types: tuple[str, ...] = ()  # exception class names it applies to (empty: any)


def _p(code: str, regex: str, cause: str, hint: str | None = None, exc_types: tuple[str, ...] = ()) -> ErrorPattern:
    return ErrorPattern(code, re.compile(regex, re.S), cause, hint, exc_types)


PATTERNS: list[ErrorPattern] = [
    _p(
        "GD101",
        r"'(?P<type>float|int|bool|numpy\.\w+|list|tuple)' object has no attribute '(?P<attr>backward|grad_fn|requires_grad)'",
        "backward() was called on a {type}, not on a tensor: the loss was turned into a Python "
        "number (by .item(), float(), .tolist() or .numpy()) before backward(), and numbers have "
        "no autograd history.",
        exc_types=("AttributeError",),
    ),
    _p(
        "GD104",
        r"'NoneType' object has no attribute '(?P<attr>zero_|data|norm|mul_|div_|add_|clamp_|item|abs|detach|copy_|sub_|clone)'",
        "A parameter's .grad is None where the code expects a tensor (e.g. `p.grad.{attr}`). .grad is "
        "None before the first backward(), after optimizer.zero_grad() (which sets gradients to None "
        "by default since torch 2.0), and for a parameter the loss does not reach.",
        hint=(
            "Guard the access (`if p.grad is not None:`), use `optimizer.zero_grad()` instead of "
            "zeroing .grad by hand, and check that the loss reaches the parameter."
        ),
        exc_types=("AttributeError",),
    ),
    _p(
        "GD102",
        r"element (?P<index>\d+) of tensors does not require grad and does not have a grad_fn",
        "backward() was called on a tensor with no autograd history: it does not require grad and "
        "has no grad_fn, so every path from the parameters to it was cut (detach(), .data, a numpy "
        "or .item() round trip, torch.tensor(...) re-wrapping, a non-differentiable op) or it was "
        "computed under torch.no_grad().",
    ),
    _p(
        "GD103",
        r"grad can be implicitly created only for (?:real )?scalar outputs",
        "backward() was called on a tensor with more than one element and no `gradient=` argument; "
        "autograd can only start from a single number.",
    ),
    _p(
        "GD401",
        r"Expected to have finished reduction in the prior iteration before starting a new one",
        "DistributedDataParallel never received gradients for some parameters in the previous "
        "iteration, so their all-reduce never finished: those parameters took no part in the "
        "forward pass that produced the loss (an unused head or branch, or outputs left out of "
        "the loss), and this forward pass found the reduction still pending.",
        hint=(
            "Find the parameters the loss does not use (`graddoctor run` names them; "
            "TORCH_DISTRIBUTED_DEBUG=DETAIL makes DDP print them): use them in the loss, freeze "
            "them with `requires_grad_(False)` before wrapping the model in DDP, or pass "
            "`find_unused_parameters=True` if the set really changes from step to step."
        ),
    ),
]


def match(exc_type: str | None, message: str) -> tuple[ErrorPattern, dict[str, str]] | None:
    for pattern in PATTERNS:
        if pattern.exc_types and exc_type and exc_type.split(".")[-1] not in pattern.exc_types:
            continue
        found = pattern.regex.search(message)
        if found:
            return pattern, {k: v for k, v in found.groupdict().items() if v is not None}
    return None
