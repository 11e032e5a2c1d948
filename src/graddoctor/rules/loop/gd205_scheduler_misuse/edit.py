"""GD205: step the scheduler where its schedule counts: an epoch scheduler stepped inside the batch loop moves
to just after that loop (once per epoch); a scheduler stepped before the optimizer moves after the optimizer's step."""

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
    if outer is None or src.enclosing(stmt, (cst.FunctionDef, cst.ClassDef)) is not src.enclosing(outer, (cst.FunctionDef, cst.ClassDef)):
        return None  # no epoch loop around the batch loop in the same function: where an epoch ends is not known
    if src.parent(src.parent(stmt)) is not inner:
        return None  # under an `if` in the batch loop: a schedule already chosen on purpose
    return Change("step the scheduler once per epoch, after the batch loop", {stmt: cst.RemoveFromParent(), inner: after(moved)})
