"""One observed call of a loss function: what came in, from where, and what the graph says about it."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from graddoctor.locate import Location
from graddoctor.provenance.recorder import SITE

# Graph nodes that only reshape or copy: looking through them, the op that made the values is found.
_PASS_THROUGH = frozenset(
    "ViewBackward0 UnsafeViewBackward0 ReshapeAliasBackward0 SqueezeBackward0 SqueezeBackward1 SqueezeBackward2 "
    "UnsqueezeBackward0 CloneBackward0 ToCopyBackward0 SliceBackward0 SelectBackward0 TBackward0 PermuteBackward0 "
    "TransposeBackward0 ExpandBackward0 AsStridedBackward0 IndexBackward0 AliasBackward0 ContiguousBackward0".split()
)
SQUASHING = {"SoftmaxBackward0": "softmax", "SigmoidBackward0": "sigmoid"}


@dataclass
class LossCall:
    name: str  # the torch.nn.functional function, e.g. "cross_entropy"
    where: Location  # the user's loss line
    step: int  # optimizer steps before it
    index: int  # how many calls of this function came before it
    input_shape: tuple
    target_shape: tuple | None
    target_is_index: bool = False  # integer class indices (cross_entropy, nll_loss)
    squashed_by: str | None = None  # "softmax" / "sigmoid" when the graph shows one right before the loss
    squashed_at: Location | None = None  # its line, when deep mode wrote it into the graph
    extra: dict = field(default_factory=dict)


def origin(x: torch.Tensor) -> tuple[str | None, Location | None, Location | None]:
    """The softmax/sigmoid that made `x`, looking through reshapes: (kind, its line, the line that made `x`).

    Lines are known only for nodes deep mode recorded (it writes the user line into
    the node's metadata); otherwise None. No tensor is touched, only graph nodes.
    """
    node = x.grad_fn
    first = site_of(node)
    for _ in range(6):
        if node is None:
            return None, None, first
        name = type(node).__name__
        kind = SQUASHING.get(name)
        if kind is not None:
            return kind, site_of(node), first
        if name not in _PASS_THROUGH:
            return None, None, first
        node = next((n for n, _ in node.next_functions if n is not None), None)
    return None, None, first


def site_of(node) -> Location | None:
    if node is None:
        return None
    try:
        meta = node.metadata
    except (AttributeError, RuntimeError):
        return None
    site = meta.get(SITE) if isinstance(meta, dict) else None
    return Location(site[0], site[1], None, site[2]) if site else None


def shape_text(shape: tuple) -> str:
    """`(64, 1)`, `(64,)`: a shape as Python writes a tuple."""
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
