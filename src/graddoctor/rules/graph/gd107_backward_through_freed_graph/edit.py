"""GD107: cut the carried state at the start of each iteration of the loop, with the statement the run built
from the state it saw (`hidden = hidden.detach()`; an LSTM tuple element by element)."""

from __future__ import annotations

import re

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, before

CODE = "GD107"
# The runtime hint carries the detach statement shaped like the observed state.
_OBSERVED = re.compile(r"at the start of each iteration: `([^`]+)`")


def edit(finding: Finding, src: Source) -> Change | None:
    found = _OBSERVED.search(finding.hint or "")
    stmt = src.statement_at(finding.line)
    if found is None or stmt is None:
        return None
    try:
        cut = cst.parse_statement(found.group(1) + "\n")
    except cst.ParserSyntaxError:
        return None
    if not isinstance(cut, cst.SimpleStatementLine) or not isinstance(cut.body[0], cst.Assign):
        return None
    loop = src.enclosing(stmt, (cst.For, cst.While))
    if loop is None or not isinstance(loop.body, cst.IndentedBlock):
        return None
    first = loop.body.body[0]
    return Change(f"cut the carried state: `{found.group(1)}`", {first: before(cut)})
