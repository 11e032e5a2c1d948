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
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return result
