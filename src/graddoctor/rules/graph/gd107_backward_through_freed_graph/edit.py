"""GD107: cut the carried state at the start of each iteration of the loop, with the statement the run built
from the state it saw (`hidden = hidden.detach()`; an LSTM tuple element by element)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, before

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
    loop = src.enclosing(stmt, (cst.For, cst.While))
    if loop is None or not isinstance(loop.body, cst.IndentedBlock):
        return None
    first = loop.body.body[0]
    return Change(f"cut the carried state: `{statement}`", {first: before(cut)})
