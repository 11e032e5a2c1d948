"""GD205: step the scheduler where its schedule counts: an epoch scheduler stepped inside the batch loop moves
to just after that loop (once per epoch), where an epoch loop holds the batch loop in the same function or the
batch loop is the body of a function that trains one epoch (`def train_one_epoch(...)`); a scheduler stepped
before the optimizer moves after the optimizer's step."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import calls_in, siblings
from graddoctor.editing.source import Change, Source, after, moving

CODE = "GD205"


def edit(finding: Finding, src: Source) -> Change | None:
    stmt = src.statement_at(finding.line)
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or not calls_in(src, stmt, "step"):
        return None
    body = siblings(src, stmt)
    at = body.index(stmt) if stmt in body else -1
    moved = moving(stmt)
    later_step = next((s for s in body[at + 1:] if calls_in(src, s, "step")), None)
    if later_step is not None:
        return Change("step the scheduler after the optimizer", {stmt: cst.RemoveFromParent(), later_step: after(moved)})
    inner = src.enclosing(stmt, (cst.For, cst.While))
    outer = src.enclosing(inner, (cst.For, cst.While)) if inner is not None else None
    function = src.enclosing(stmt, (cst.FunctionDef, cst.ClassDef))
    if inner is None or (outer is None or function is not src.enclosing(outer, (cst.FunctionDef, cst.ClassDef))) \
            and not _one_epoch(src, function, inner):
        return None  # no epoch loop around the batch loop in the same function: where an epoch ends is not known
    if src.parent(src.parent(stmt)) is not inner:
        return None  # under an `if` in the batch loop: a schedule already chosen on purpose
    return Change("step the scheduler once per epoch, after the batch loop", {stmt: cst.RemoveFromParent(), inner: after(moved)})


def _one_epoch(src: Source, function: cst.CSTNode | None, loop: cst.CSTNode) -> bool:
    """`def train_one_epoch(...)` whose own body holds the batch loop: the function's end is the epoch's end."""
    return isinstance(function, cst.FunctionDef) and "epoch" in function.name.value.lower() \
        and src.parent(src.parent(loop)) is function
