"""How many samples a loss averaged, read off its graph: no extra pass, no host synchronisation.

One step's loss depends on its batch: the last batch of an epoch (4 samples instead of 64) is
noisier and often larger. Loss windows compare like with like when they hold steps of the same
batch size (fix's before/after, GD306's first and last windows). The size is the leading
dimension of what the loss's last ops saved (a reduction's input sizes, a criterion's input or
target), found a few nodes below the loss: sizes only, no tensor values are read.
"""

from __future__ import annotations

_DEPTH = 4  # nodes below the loss looked at: through a scaling (`loss / accum`) or a sum of terms
# Saved inputs whose leading dimension is the batch: a reduction's input sizes, a criterion's input
# and target, a product's or quotient's operands. Weights (class weights, pos_weight) are not.
_BATCH_INPUTS = ("_saved_self_sym_sizes", "_saved_self", "_saved_input", "_saved_target", "_saved_other")
# per node type, the saved input that gave its batch size ("" where none did: look below it), so the
# hot path reads one attribute per node, not every saved input
_known: dict[type, str] = {}


def batch_of(node) -> int | None:
    """The leading dimension of the first batch-shaped input saved at or below `node`, None when none is
    within reach (a compiled graph, a loss with no saved batch-shaped input)."""
    for _ in range(_DEPTH):
        if node is None:
            return None
        kind = type(node)
        attr = _known.get(kind)
        size = _read(node, attr) if attr else None
        if size is None and attr is None:
            size, _known[kind] = _first_size(node)
        if size is not None:
            return size
        nexts = node.next_functions
        node = nexts[0][0] if nexts else None
    return None


def _first_size(node) -> tuple[int | None, str]:
    for attr in _BATCH_INPUTS:
        if hasattr(node, attr):
            size = _read(node, attr)
            if size is not None:
                return size, attr
    return None, ""


def _read(node, attr: str) -> int | None:
    try:
        return _leading(getattr(node, attr))
    except RuntimeError:  # freed by an earlier backward
        return None


def _leading(saved) -> int | None:
    shape = saved if isinstance(saved, tuple) else getattr(saved, "shape", None)
    if not shape:
        return None
    try:
        return int(shape[0])
    except (TypeError, ValueError):  # a symbolic size under tracing
        return None


def typical(sizes: list) -> int | None:
    """The batch size most steps had, when there is one to compare by: at least half the steps, and
    some steps of another size (else every step is alike and nothing is left out)."""
    known = [s for s in sizes if s is not None]
    if len(known) < len(sizes) or not known:
        return None
    best = max(set(known), key=known.count)
    if known.count(best) * 2 < len(known) or known.count(best) == len(known):
        return None
    return best
