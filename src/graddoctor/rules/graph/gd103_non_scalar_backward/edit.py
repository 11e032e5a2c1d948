"""GD103: reduce the per-sample loss to its mean before the backward: `loss.backward()` becomes
`loss.mean().backward()`, where `loss` is assigned from a loss call in the same function (a criterion
built with `reduction='none'`, a functional loss); a tensor that is not a loss gets no edit."""

from __future__ import annotations

import re

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import inside, walk
from graddoctor.editing.source import Change, Source, callee_name, expression

CODE = "GD103"
_LOSS_CALL = re.compile(r"(loss|criterion|crit|cross_entropy|nll|mse|l1|bce|huber|kl_div)", re.I)


def edit(finding: Finding, src: Source) -> Change | None:
    calls = [c for c in src.calls_at(finding.line) if callee_name(c) == "backward" and isinstance(c.func, cst.Attribute)]
    if len(calls) != 1 or calls[0].args:
        return None  # a `gradient=` argument is a choice already made
    tensor = calls[0].func.value
    if not isinstance(tensor, cst.Name) or not _assigned_from_a_loss(src, tensor, calls[0]):
        return None
    return Change(f"reduce `{tensor.value}` to its mean before the backward",
                  {tensor: expression(f"{tensor.value}.mean()")})


def _assigned_from_a_loss(src: Source, name: cst.Name, use: cst.Call) -> bool:
    """Every assignment of `name` in the function of `use` calls a loss (`criterion(out, y)`, `F.mse_loss(...)`)."""
    scope = src.enclosing(use, (cst.FunctionDef, cst.Module)) or src.tree
    values = [a.value for a in src.nodes(cst.Assign) if inside(src, a, scope)
              and src.enclosing(a, (cst.FunctionDef, cst.Module)) is scope
              and any(isinstance(t.target, cst.Name) and t.target.value == name.value for t in a.targets)]
    return bool(values) and all(
        any(isinstance(n, cst.Call) and _LOSS_CALL.search(src.code(n.func)) for n in walk(v)) for v in values)
