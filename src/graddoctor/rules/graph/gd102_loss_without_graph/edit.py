"""GD102: remove the cut on the line the run named: a `.detach()` or `.data` on the path is dropped
(`self.predictor(h).detach().chunk(2)` becomes `self.predictor(h).chunk(2)`), and a list of tensors re-wrapped by
`torch.tensor([...])` is stacked instead (`torch.stack([...])` keeps their graph). Only when the line holds
exactly one such cut; a non-differentiable op (argmax, round, an integer cast, a numpy metric) gets no edit:
its fix is another loss, which is not guessed."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD102"


def edit(finding: Finding, src: Source) -> Change | None:
    line = src.statement_at(finding.line)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or not isinstance(line.body[0], cst.Assign):
        return None  # the cut is made where a value is computed; a backward() line or a bare call is not it
    on_line = [n for n in src.nodes(cst.Attribute) if src.statement_of(n) is line]
    if any(n.attr.value == "data" and _written(src, n) for n in on_line):
        return None  # a write through `.data` (a parameter's update): not the loss's path
    cuts = [(node, new, what) for node in src.nodes((cst.Call, cst.Attribute))
            if src.lines_of(node)[0] == finding.line and src.statement_of(node) is line
            for new, what in [_uncut(src, node)] if new is not None]
    if len(cuts) != 1:
        return None  # none, or several cuts on the line: which one was meant is not guessed
    node, new, what = cuts[0]
    if _leaves_torch(src, node, line):
        return None  # `.detach().cpu().numpy()`: the numpy copy cuts too (and numpy() refuses a tensor with a graph)
    return Change(what, {node: new})


def _leaves_torch(src: Source, node: cst.CSTNode, line: cst.CSTNode) -> bool:
    """What the cut's result goes on to become, on its line, is a number, a list or an array."""
    while (node := src.parent(node)) is not None and node is not line:
        if isinstance(node, cst.Call) and callee_name(node) in ("numpy", "tolist", "item", "float", "int"):
            return True
    return False


def _uncut(src: Source, node: cst.CSTNode) -> tuple[cst.BaseExpression | None, str]:
    if isinstance(node, cst.Call) and callee_name(node) == "detach" and isinstance(node.func, cst.Attribute) \
            and not node.args:
        return node.func.value, "drop the `.detach()` that cuts the loss from the parameters"
    if isinstance(node, cst.Attribute) and node.attr.value == "data" and not _written(src, node):
        return node.value, "drop the `.data` that cuts the loss from the parameters"
    if isinstance(node, cst.Call) and callee_name(node) == "tensor" and isinstance(node.func, cst.Attribute) \
            and len(node.args) == 1 and node.args[0].keyword is None \
            and isinstance(node.args[0].value, (cst.List, cst.ListComp)):
        stack = node.with_changes(func=node.func.with_changes(attr=cst.Name("stack")))
        return stack, f"stack the tensors with `{src.code(node.func.value)}.stack` (`tensor()` copies them without their graph)"
    return None, ""


def _written(src: Source, node: cst.Attribute) -> bool:
    """`w.data = ...`, `w.data += ...`, `w.data.copy_(...)`: a write through `.data`, not a read of it."""
    parent = src.parent(node)
    if isinstance(parent, (cst.AssignTarget, cst.AugAssign)) and parent.target is node:
        return True
    return isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value.endswith("_")
