"""Walk an autograd graph from its root; walking is kept apart from judging.

Like micrograd's `trace(root)`, this returns what the graph holds and nothing
else: the nodes, and the leaf tensors whose gradients the graph would
accumulate (`AccumulateGrad.variable`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class GraphTrace:
    nodes: int = 0
    leaves: list[torch.Tensor] = field(default_factory=list)
    leaf_ids: set[int] = field(default_factory=set)

    def reaches(self, tensor: torch.Tensor) -> bool:
        return id(tensor) in self.leaf_ids


def trace(root: torch.Tensor | torch.autograd.graph.Node | None) -> GraphTrace:
    """Every node reachable from `root` and every leaf whose `.grad` it would fill.

    Iterative (deep graphs, e.g. an unrolled RNN, overflow recursion) and
    visits each node once.
    """
    result = GraphTrace()
    start = root.grad_fn if isinstance(root, torch.Tensor) else root
    if start is None:
        return result
    seen: set = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        result.nodes += 1
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in result.leaf_ids:
            result.leaf_ids.add(id(variable))
            result.leaves.append(variable)
        elif type(node).__name__ == _REENTRANT_CHECKPOINT:
            # A reentrant checkpoint's node hides its stage: backward recomputes the stage and
            # fills the .grad of its parameters, which no edge of this graph leads to.
            for param in _stage_parameters(getattr(node, "run_function", None)):
                if id(param) not in result.leaf_ids:
                    result.leaf_ids.add(id(param))
                    result.leaves.append(param)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return result


_REENTRANT_CHECKPOINT = "CheckpointFunctionBackward"


def _stage_parameters(run_function: object, depth: int = 0) -> list[torch.Tensor]:
    """The trainable parameters of the modules a checkpointed stage runs: the module itself, a
    bound method's module (`layer.__call__`), a partial's function, or modules a closure holds
    (`checkpoint_sequential`'s segments)."""
    if run_function is None or depth > 2:
        return []
    if isinstance(run_function, torch.nn.Module):
        return [p for p in run_function.parameters() if p.requires_grad]
    owner = getattr(run_function, "__self__", None)
    if isinstance(owner, torch.nn.Module):
        return _stage_parameters(owner, depth + 1)
    inner = getattr(run_function, "func", None)  # functools.partial
    if inner is not None:
        return _stage_parameters(inner, depth + 1)
    out: list[torch.Tensor] = []
    for cell in getattr(run_function, "__closure__", None) or ():
        try:
            held = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        items = held if isinstance(held, (list, tuple)) else (held,)
        for item in items[:256]:
            if isinstance(item, torch.nn.Module) or callable(item) and depth < 2:
                out += _stage_parameters(item, depth + 1)
    return out
