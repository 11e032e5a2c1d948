"""How many samples a loss averaged, read off its graph: no extra pass, no host synchronisation.

One step's loss depends on its batch: the last batch of an epoch (4 samples instead of 64) is
noisier and often larger. Loss windows compare like with like when they hold steps of the same
batch size (fix's before/after, GD306's first and last windows). The size is the leading
dimension of the first value with a dimension a few nodes below the loss (a criterion's input, a
per-sample loss before its mean): shapes only, no tensor values are read.
"""

from __future__ import annotations

_DEPTH = 5  # nodes below the loss looked at: through a scaling (`loss / accum`), a criterion, a sum of terms


def batch_of(node) -> int | None:
    """The leading dimension of the first value with a dimension at or below the loss's node `node`
    (the criterion's input, a per-sample loss before its mean), None when none is within reach.

    Read from each node's input metadata (the shape of the gradient it receives, which is the shape
    of what its forward op returned), never from the tensors the graph saved: unpacking a saved
    tensor can run hooks (a checkpoint's recomputation, `save_on_cpu`'s copy back)."""
    for _ in range(_DEPTH):
        if node is None:
            return None
        metadata = getattr(node, "_input_metadata", None)
        if metadata:
            shape = metadata[0].shape
            if len(shape):
                try:
                    return int(shape[0])
                except (TypeError, ValueError):  # a symbolic size under tracing
                    return None
        nexts = node.next_functions
        node = nexts[0][0] if nexts else None
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
