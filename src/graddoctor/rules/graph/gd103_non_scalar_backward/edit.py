"""GD103: reduce the per-sample loss to its mean before the backward: `loss.backward()` becomes
`loss.mean().backward()`, where `loss` is assigned from a loss call in the same function (a criterion
built with `reduction='none'`, a functional loss; later reassignments from itself, such as a mask, keep it
a loss), or is the `"loss"` entry or `.loss` attribute of what a helper returned (`out["loss"].backward()`);
a tensor that is not a loss gets no edit."""

from __future__ import annotations

import re

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import inside, walk
from graddoctor.editing.source import Change, Source, callee_name, expression

CODE = "GD103"
_LOSS_KEY = re.compile(r"(\w+_)?loss(_\w+)?", re.I)  # "loss", "total_loss", "loss_ce"; not "losses"
_LOSS_CALL = re.compile(r"(loss|criterion|crit|cross_entropy|nll|mse|l1|bce|huber|kl_div)", re.I)


def edit(finding: Finding, src: Source) -> Change | None:
    calls = [c for c in src.calls_at(finding.line) if callee_name(c) == "backward" and isinstance(c.func, cst.Attribute)]
    if len(calls) != 1 or calls[0].args:
        return None  # a `gradient=` argument is a choice already made
    tensor = calls[0].func.value
    if isinstance(tensor, cst.Name):
        if not _assigned_from_a_loss(src, tensor, calls[0]):
            return None
    elif _LOSS_KEY.fullmatch(_key(tensor) or "") is None:
        return None
    shown = src.code(tensor)
    return Change(f"reduce `{shown}` to its mean before the backward", {tensor: expression(f"{shown}.mean()")})


def _key(tensor: cst.BaseExpression) -> str | None:
    """`out["loss"]` -> "loss", `outputs.loss` -> "loss"; None for anything else."""
    if isinstance(tensor, cst.Attribute):
        return tensor.attr.value
    if isinstance(tensor, cst.Subscript) and len(tensor.slice) == 1:
        index = tensor.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            return index.value.evaluated_value if isinstance(index.value.evaluated_value, str) else None
    return None


def _assigned_from_a_loss(src: Source, name: cst.Name, use: cst.Call) -> bool:
    """The assignments of `name` in the function of `use` each call a loss (`criterion(out, y)`,
    `F.mse_loss(...)`) or rework `name` itself (`loss = loss * mask`), and one calls a loss."""
    scope = src.enclosing(use, (cst.FunctionDef, cst.Module)) or src.tree
    values = [a.value for a in src.nodes(cst.Assign) if inside(src, a, scope)
              and src.enclosing(a, (cst.FunctionDef, cst.Module)) is scope
              and any(isinstance(t.target, cst.Name) and t.target.value == name.value for t in a.targets)]
    calls_loss = [any(isinstance(n, cst.Call) and _LOSS_CALL.search(src.code(n.func)) for n in walk(v)) for v in values]
    reworks = [any(isinstance(n, cst.Name) and n.value == name.value for n in walk(v)) for v in values]
    return any(calls_loss) and all(c or r for c, r in zip(calls_loss, reworks))
