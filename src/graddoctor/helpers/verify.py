"""`verify_layer`: check a custom layer's analytic gradients against finite differences, in float64.

The layer is deep-copied and converted to float64; the user's module, its
parameters and the global random state are left as they were. The output is
reduced to a scalar with a fixed random weighting, so one backward pass gives
the full vector-Jacobian product and every element of every input and parameter
is compared with a central difference.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from graddoctor.errors import NonDeterministicLayerError, NonDifferentiableLayerError

__all__ = ["GradientMismatch", "LayerCheck", "verify_layer"]

_SEED = 20240229


@dataclass(frozen=True)
class GradientMismatch:
    """One input or parameter whose analytic gradient disagrees with finite differences."""

    name: str
    shape: tuple[int, ...]
    max_abs_error: float
    max_rel_error: float
    worst_index: tuple[int, ...]
    analytic: float  # the analytic value at worst_index (nan when autograd gave no gradient)
    numeric: float  # the finite-difference value there
    bad_elements: int
    checked_elements: int

    def __str__(self) -> str:
        where = f"[{', '.join(map(str, self.worst_index))}]" if self.worst_index else ""
        analytic = "no gradient (None)" if self.analytic != self.analytic else f"{self.analytic:.6g}"
        return (
            f"{self.name} {list(self.shape)}: {self.bad_elements} of {self.checked_elements} elements disagree; "
            f"worst at {self.name}{where}: autograd {analytic}, finite differences {self.numeric:.6g} "
            f"(abs error {self.max_abs_error:.3g}, rel error {self.max_rel_error:.3g})"
        )


@dataclass
class LayerCheck:
    """The result of `verify_layer`: `.ok`, `.mismatches`, and what was checked."""

    layer: str
    checked: list[str] = field(default_factory=list)
    mismatches: list[GradientMismatch] = field(default_factory=list)
    eps: float = 1e-6
    atol: float = 1e-5
    rtol: float = 1e-3

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        head = f"verify_layer({self.layer}): "
        if self.ok:
            return head + f"gradients match finite differences for {', '.join(self.checked) or 'nothing'}."
        lines = [head + f"{len(self.mismatches)} of {len(self.checked)} gradients disagree with finite differences:"]
        lines += [f"  {m}" for m in self.mismatches]
        return "\n".join(lines)


def verify_layer(
    module_or_fn: nn.Module | Callable[..., Any],
    *example_inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    max_elements: int = 4096,
) -> LayerCheck:
    """Compare the layer's analytic gradients with central finite differences, in float64.

    Checks every floating-point example input and every trainable parameter
    (at most `max_elements` elements of each, chosen at random but
    reproducibly). Random layers such as dropout are run with the same seed for
    every evaluation, so their masks stay fixed. Raises
    `NonDifferentiableLayerError` when the output has no gradient at all (an
    integer output, argmax, a missing derivative) and
    `NonDeterministicLayerError` when the same inputs give different outputs
    even with a fixed seed.

    >>> import torch
    >>> from graddoctor import verify_layer
    >>> class BadSquare(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return grad * x          # wrong: the derivative of x*x is 2*x
    >>> verify_layer(BadSquare.apply, torch.randn(3)).ok
    False
    >>> verify_layer(torch.nn.Linear(3, 2), torch.randn(4, 3)).ok
    True
    """
    if not callable(module_or_fn):
        raise TypeError(f"verify_layer needs an nn.Module or a function, not {type(module_or_fn).__name__}")
    layer, params, label = _double_copy(module_or_fn)
    inputs = [_double_input(x) for x in example_inputs]
    named: list[tuple[str, torch.Tensor]] = [
        (name, t) for name, t in zip(_input_names(module_or_fn, example_inputs), inputs)
        if isinstance(t, torch.Tensor) and t.requires_grad
    ]
    named += [(f"parameter {name}", p) for name, p in params]
    if not named:
        raise NonDifferentiableLayerError(
            f"verify_layer({label}): nothing to check: no floating-point input and no trainable parameter."
        )

    def evaluate() -> list[torch.Tensor]:
        with torch.random.fork_rng(devices=_devices(inputs, params)):
            torch.manual_seed(_SEED)
            out = layer(*inputs)
        return _float_outputs(out)

    with torch.enable_grad():
        outputs = evaluate()
        if not outputs:
            raise NonDifferentiableLayerError(
                f"verify_layer({label}): the output has no floating-point tensor (an integer or bool result, "
                "e.g. from argmax or a comparison), so it has no gradient to check."
            )
        weights = _projection(outputs)
        again = evaluate()
        if any(not torch.equal(a.detach(), b.detach()) for a, b in zip(outputs, again)):
            raise NonDeterministicLayerError(
                f"verify_layer({label}): the same inputs gave different outputs twice, even with a fixed seed "
                "(randomness from outside torch's generator, a global counter, or state changed by forward). "
                "Finite differences are meaningless then; make forward deterministic for the check."
            )
        objective = _objective(outputs, weights)
        if objective.grad_fn is None:
            raise NonDifferentiableLayerError(
                f"verify_layer({label}): the output does not depend differentiably on any input or parameter "
                "(no grad_fn): it was detached, computed under no_grad, or made by a non-differentiable op."
            )
        try:
            analytic = torch.autograd.grad(objective, [t for _, t in named], allow_unused=True)
        except RuntimeError as exc:
            raise NonDifferentiableLayerError(
                f"verify_layer({label}): backward failed, so the layer has no usable gradient: {exc}"
            ) from None

    result = LayerCheck(layer=label, eps=eps, atol=atol, rtol=rtol)
    generator = torch.Generator().manual_seed(_SEED)
    for (name, tensor), grad in zip(named, analytic):
        result.checked.append(name)
        mismatch = _compare(name, tensor, grad, lambda: float(_objective(evaluate(), weights)), eps, atol, rtol,
                            max_elements, generator)
        if mismatch is not None:
            result.mismatches.append(mismatch)
    return result


def _double_copy(module_or_fn: Any) -> tuple[Callable[..., Any], list[tuple[str, torch.Tensor]], str]:
    if isinstance(module_or_fn, nn.Module):
        layer = copy.deepcopy(module_or_fn).double()  # never touch the user's own parameters
        params = [(n, p) for n, p in layer.named_parameters() if p.requires_grad]
        return layer, params, type(module_or_fn).__name__
    function = _autograd_function(module_or_fn)
    if function is not None:
        return module_or_fn, [], f"{function.__name__}.apply"
    label = getattr(module_or_fn, "__qualname__", None) or getattr(module_or_fn, "__name__", None) or repr(module_or_fn)
    return module_or_fn, [], label.split("<locals>.")[-1]


def _autograd_function(fn: Any) -> type | None:
    """The torch.autograd.Function class when `fn` is its `.apply`."""
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
        return owner
    return None


def _double_input(x: Any) -> Any:
    if isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex()):
        dtype = torch.complex128 if x.is_complex() else torch.float64
        return x.detach().to(dtype).clone().requires_grad_(True)
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    return x


def _input_names(module_or_fn: Any, inputs: tuple[Any, ...]) -> list[str]:
    """`input x` by the argument's name where the signature gives one, else `input <position>`."""
    function = _autograd_function(module_or_fn)
    target = module_or_fn.forward if isinstance(module_or_fn, nn.Module) else module_or_fn
    if function is not None:
        target = function.forward
    try:
        parameters = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    if function is not None:
        parameters = parameters[1:]  # forward(ctx, ...)
    names: list[str] = []
    for position in range(len(inputs)):
        if position < len(parameters) and parameters[position].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
        ):
            names.append(f"input {parameters[position].name}")
        else:
            names.append(f"input {position}")
    return names


def _devices(inputs: list[Any], params: list[tuple[str, torch.Tensor]]) -> list[int]:
    tensors = [t for t in inputs if isinstance(t, torch.Tensor)] + [p for _, p in params]
    return sorted({t.device.index or 0 for t in tensors if t.device.type == "cuda"})


def _float_outputs(out: Any) -> list[torch.Tensor]:
    if isinstance(out, torch.Tensor):
        return [out] if out.is_floating_point() or out.is_complex() else []
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        return [t for item in out for t in _float_outputs(item)]
    return []


def _projection(outputs: list[torch.Tensor]) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(_SEED + 1)
    return [torch.randn(o.shape, generator=generator, dtype=torch.float64).to(o.device) for o in outputs]


def _objective(outputs: list[torch.Tensor], weights: list[torch.Tensor]) -> torch.Tensor:
    total = outputs[0].new_zeros((), dtype=torch.float64)
    for out, w in zip(outputs, weights):
        total = total + (out.real if out.is_complex() else out).double().mul(w).sum()
    return total


def _compare(
    name: str,
    tensor: torch.Tensor,
    grad: torch.Tensor | None,
    objective: Callable[[], float],
    eps: float,
    atol: float,
    rtol: float,
    max_elements: int,
    generator: torch.Generator,
) -> GradientMismatch | None:
    flat = tensor.data.view(-1)
    count = flat.numel()
    if count > max_elements:
        chosen = torch.randperm(count, generator=generator)[:max_elements].tolist()
    else:
        chosen = list(range(count))
    analytic = grad.detach().reshape(-1) if grad is not None else None
    worst = (-1.0, 0, 0.0, 0.0, 0.0)  # abs error, index, analytic, numeric, rel error
    bad = 0
    with torch.no_grad():
        for i in chosen:
            original = flat[i].item()
            flat[i] = original + eps
            plus = objective()
            flat[i] = original - eps
            minus = objective()
            flat[i] = original
            numeric = (plus - minus) / (2 * eps)
            value = float(analytic[i]) if analytic is not None else 0.0
            error = abs(value - numeric)
            if error > atol + rtol * abs(numeric) or (analytic is None and numeric != 0.0):
                bad += 1
            if error > worst[0]:
                worst = (error, i, value, numeric, error / max(abs(numeric), 1e-12))
    if not bad:
        return None
    index = tuple(int(k) for k in torch.unravel_index(torch.tensor(worst[1]), tensor.shape)) if tensor.dim() else ()
    return GradientMismatch(
        name=name,
        shape=tuple(tensor.shape),
        max_abs_error=worst[0],
        max_rel_error=worst[4],
        worst_index=index,
        analytic=worst[2] if analytic is not None else float("nan"),
        numeric=worst[3],
        bad_elements=bad,
        checked_elements=len(chosen),
    )
