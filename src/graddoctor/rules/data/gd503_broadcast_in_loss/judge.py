"""GD503: prediction and target of different shapes that broadcast inside the loss.

Built-in losses: the shapes of the two arguments, compared at the call (no
tensor is read). It counts as a broadcast only when the result is larger than
both, as `(N, 1)` against `(N,)` gives `(N, N)`; a scalar or per-feature
target that broadcasts over the batch leaves the prediction's shape as it was
and is left alone.

Hand-written losses (`((pred - y) ** 2).mean()`): the loss graph is read from
its root, a few nodes deep through element-wise ops, on the backward calls
the graph observer walks anyway. A subtraction whose result is `(N, N)` from
an `(N, 1)` or `(N,)` operand that was not reshaped on purpose (pairwise
distances come through `unsqueeze`/`view`) is the same bug.
"""

from __future__ import annotations

import torch

from graddoctor.finding import Finding, Related
from graddoctor.locate import Location
from graddoctor.lossdata.calls import LossCall, shape_text, site_of
from graddoctor.rules import make

REGRESSION = frozenset({"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"})
_ELEMENTWISE = frozenset(
    "MeanBackward0 MeanBackward1 SumBackward0 SumBackward1 PowBackward0 AbsBackward0 MulBackward0 DivBackward0 "
    "SqrtBackward0 NegBackward0 AddBackward0 SubBackward0 RsubBackward1 ClampBackward1 WhereBackward0 "
    "SmoothL1LossBackward0 LogBackward0 ExpBackward0".split()
)
_DIFFERENCES = frozenset({"SubBackward0", "RsubBackward1", "AddBackward0"})
_RESHAPES = frozenset(
    "UnsqueezeBackward0 ViewBackward0 UnsafeViewBackward0 ReshapeAliasBackward0 ExpandBackward0 TransposeBackward0 "
    "PermuteBackward0 TBackward0 SliceBackward0 SelectBackward0 IndexBackward0 AsStridedBackward0".split()
)
_MAX_NODES = 12


class Broadcast:
    def __init__(self) -> None:
        self.found: dict[tuple, Finding] = {}

    def check_call(self, call: LossCall) -> None:
        """A built-in loss: compare the argument shapes (cheap, no tensor data read)."""
        if call.name not in REGRESSION or call.target_shape is None:
            return
        pred, target = call.input_shape, call.target_shape
        if pred == target:
            return
        try:
            result = tuple(torch.broadcast_shapes(pred, target))
        except RuntimeError:
            return  # torch raises on its own: an error, explained elsewhere
        if result in (pred, target):
            return
        self._report(call.where, call.step, f"`{call.name}`", pred, target, result, None)

    def check_graph(self, loss: torch.Tensor, backward: Location, step: int) -> None:
        """A hand-written loss: a broadcasting difference close to the loss's root."""
        node = loss.grad_fn
        stack, seen = [node], 0
        while stack and seen < _MAX_NODES:
            node = stack.pop()
            if node is None:
                continue
            seen += 1
            name = type(node).__name__
            if name not in _ELEMENTWISE:
                continue
            if name in _DIFFERENCES and self._broadcast_difference(node, backward, step):
                return
            stack.extend(n for n, _ in node.next_functions)

    def _broadcast_difference(self, node, backward: Location, step: int) -> bool:
        try:
            result = tuple(node._input_metadata[0].shape)
        except (AttributeError, IndexError, RuntimeError):
            return False
        if len(result) != 2 or result[0] != result[1] or result[0] < 2:
            return False
        n = result[0]
        operands = []
        for child, nr in node.next_functions:
            if child is None:
                operands.append(None)  # a target that needs no gradient: its shape is not in the graph
                continue
            if type(child).__name__ in _RESHAPES:
                return False  # reshaped on purpose (pairwise differences)
            try:
                operands.append(tuple(child._input_metadata[nr].shape))
            except (AttributeError, IndexError, RuntimeError):
                return False
        pred = next((s for s in operands if s in ((n, 1), (n,))), None)
        if pred is None or any(s is not None and s not in ((n, 1), (n,)) for s in operands):
            return False
        other = next((s for s in operands if s is not None and s != pred), None)
        if other is None:
            other = (n,) if pred == (n, 1) else (n, 1)
        if pred == other:
            return False
        at = site_of(node)
        where = at if at is not None and at.file else backward
        self._report(where, step, "the hand-written loss", pred, other, result, backward if where is not backward else None)
        return True

    def _report(self, where: Location, step: int, what: str, pred: tuple, target: tuple, result: tuple,
                backward: Location | None) -> None:
        key = (where.file, where.line)
        if key in self.found:
            return
        related = [Related(backward.shown()["file"], backward.line, "backward() of that loss")] if backward else []
        message = (f"In {what}, the prediction of shape {shape_text(pred)} and the target of shape {shape_text(target)} "
                   f"broadcast to {shape_text(result)}: every prediction is compared with every target, not with its "
                   "own, so the loss is lowest when the model predicts the batch mean for everyone.")
        if len(pred) == 2:
            hint = (f"Give both the same shape: compare `pred.squeeze(-1)` (shape {shape_text(target)}) with the "
                    "target, or reshape the target with `y.view(-1, 1)`.")
        else:
            hint = (f"Give both the same shape: squeeze the target to {shape_text(pred)} (`y.squeeze(-1)`) "
                    "before comparing.")
        evidence = {"prediction_shape": list(pred), "target_shape": list(target), "broadcast_shape": list(result)}
        self.found[key] = make("GD503", message, hint=hint, related=related, step=step, evidence=evidence,
                               **where.shown())

    def findings(self) -> list[Finding]:
        return list(self.found.values())
