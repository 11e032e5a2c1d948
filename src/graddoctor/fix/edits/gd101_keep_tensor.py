"""GD101: keep the loss a tensor: drop the `.item()` / `float()` / `.tolist()` / `.numpy()` that turned it
into a number, and a `torch.tensor(...)` that re-wraps that number (it starts a new graph with no parameters)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.fix.source import Change, Source, callee_name

CODE = "GD101"
_METHODS = ("item", "tolist", "numpy")
_FUNCTIONS = ("float", "int")
_REWRAP = ("tensor", "as_tensor", "Tensor", "scalar_tensor")


def edit(finding: Finding, src: Source) -> Change | None:
    conversions = [(c, inner) for c in src.calls_at(finding.line) if (inner := _tensor_of(c)) is not None]
    if len(conversions) != 1:
        return None  # none, or several numbers on the line: which one is the loss is not guessed
    call, tensor = conversions[0]
    target: cst.CSTNode = call
    parent = src.parent(call)
    if isinstance(parent, cst.Arg) and parent.keyword is None:
        wrap = src.parent(parent)
        if isinstance(wrap, cst.Call) and callee_name(wrap) in _REWRAP and wrap.args[0] is parent:
            target = wrap
    return Change(f"keep `{src.code(tensor)}` a tensor", {target: tensor})


def _tensor_of(call: cst.Call) -> cst.BaseExpression | None:
    name = callee_name(call)
    if name in _METHODS and isinstance(call.func, cst.Attribute) and not call.args:
        return call.func.value
    if name in _FUNCTIONS and isinstance(call.func, cst.Name) and len(call.args) == 1 and call.args[0].keyword is None:
        return call.args[0].value
    return None
