"""GD101: keep the loss a tensor: drop the `.item()` / `float()` / `.tolist()` / `.numpy()` that turned it
into a number, and a `torch.tensor(...)` that re-wraps that number (it starts a new graph with no parameters)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD101"
_METHODS = ("item", "tolist", "numpy")
_FUNCTIONS = ("float", "int")
_REWRAP = ("tensor", "as_tensor", "Tensor", "scalar_tensor")


def edit(finding: Finding, src: Source) -> Change | None:
    conversions = [(c, inner) for c in src.calls_at(finding.line) if (inner := _tensor_of(c)) is not None]
    if len(conversions) != 1:
        return None  # none, or several numbers on the line: which one is the loss is not guessed
    call, tensor = conversions[0]
    replacements: dict[cst.CSTNode, cst.CSTNode] = {_rewrap_of(src, call) or call: tensor}
    # `value = loss.item()` ... `torch.tensor(value, requires_grad=True)`: the number is kept in a
    # name and re-wrapped later. Kept a tensor, the re-wrap would copy it without its graph: it goes too.
    held = _assigned_name(src, call)
    if held is not None:
        scope = src.enclosing(call, (cst.FunctionDef, cst.Module)) or src.tree
        for node in src.nodes(cst.Name):
            if node.value != held or src.enclosing(node, (cst.FunctionDef, cst.Module)) is not scope:
                continue
            arg = src.parent(node)
            wrap = _rewrap_of(src, node) if isinstance(arg, cst.Arg) else None
            if wrap is not None:
                replacements[wrap] = node
    return Change(f"keep `{src.code(tensor)}` a tensor", replacements)


def _rewrap_of(src: Source, value: cst.CSTNode) -> cst.Call | None:
    """`torch.tensor(value, ...)` when `value` is that call's first positional argument."""
    parent = src.parent(value)
    if isinstance(parent, cst.Arg) and parent.keyword is None:
        wrap = src.parent(parent)
        if isinstance(wrap, cst.Call) and callee_name(wrap) in _REWRAP and wrap.args[0] is parent:
            return wrap
    return None


def _assigned_name(src: Source, call: cst.Call) -> str | None:
    """`name` of `name = <call>`, the only target."""
    parent = src.parent(call)
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and parent.value is call:
        target = parent.targets[0].target
        if isinstance(target, cst.Name):
            return target.value
    return None


def _tensor_of(call: cst.Call) -> cst.BaseExpression | None:
    name = callee_name(call)
    if name in _METHODS and isinstance(call.func, cst.Attribute) and not call.args:
        return call.func.value
    if name in _FUNCTIONS and isinstance(call.func, cst.Name) and len(call.args) == 1 and call.args[0].keyword is None:
        return call.args[0].value
    return None
