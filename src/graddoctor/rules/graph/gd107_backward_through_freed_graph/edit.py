"""GD107: cut the carried state where the loop produces it, with the statement the run built from the state it
saw (`hidden = hidden.detach()`; an LSTM tuple element by element), right after the statement that assigns
it, where it is always a tensor (at the loop's top it may still be the `None` of the first iteration)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import walk
from graddoctor.editing.source import Change, Source, after

CODE = "GD107"


def edit(finding: Finding, src: Source) -> Change | None:
    # The run recorded the detach statement shaped like the state it saw (the finding's cause).
    statement = (finding.cause or {}).get("detach")
    stmt = src.statement_at(finding.line)
    if not statement or stmt is None:
        return None
    try:
        cut = cst.parse_statement(statement + "\n")
    except cst.ParserSyntaxError:
        return None
    if not isinstance(cut, cst.SimpleStatementLine) or not isinstance(cut.body[0], cst.Assign):
        return None
    names = {n for t in cut.body[0].targets for n in _names(t.target)}
    loop = src.enclosing(stmt, (cst.For, cst.While))
    if not names or loop is None or not isinstance(loop.body, cst.IndentedBlock):
        return None
    body = list(loop.body.body)
    producers = [s for s in body if isinstance(s, cst.SimpleStatementLine) and _assigns(s) & names]
    if len(producers) != 1 or _assigns(producers[0]) < names:
        return None  # produced in several places, or inside a block: where it is a tensor is not guessed
    produced = producers[0]
    later = body[body.index(produced) + 1:]
    if any(isinstance(n, cst.Name) and n.value in names for s in later for n in walk(s)):
        return None  # the state is read after it is produced: cutting it there would cut this step's loss too
    return Change(f"cut the carried state where it is produced: `{statement}`", {produced: after(cut)})


def _names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _names(e.value)}
    return set()


def _assigns(stmt: cst.SimpleStatementLine) -> set[str]:
    return {n for small in stmt.body if isinstance(small, cst.Assign) for t in small.targets for n in _names(t.target)}
