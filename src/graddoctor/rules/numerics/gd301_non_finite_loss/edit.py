"""GD301: take the log of a softmax in one stable step: `torch.log(F.softmax(x, dim=1))` (or
`F.softmax(x, dim=1).log()`) becomes `F.log_softmax(x, dim=1)`, which never takes the log of an exact 0."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD301"


def edit(finding: Finding, src: Source) -> Change | None:
    pairs = [(log, inner) for log in src.calls_at(finding.line) if (inner := _log_of_softmax(src, log)) is not None]
    if len(pairs) != 1:
        return None  # no log of a softmax on the line (the NaN came from elsewhere), or several
    log, softmax = pairs[0]
    func = softmax.func
    assert isinstance(func, cst.Attribute)
    stable = softmax.with_changes(func=func.with_changes(attr=cst.Name("log_softmax")))
    return Change(f"take `log_softmax` instead of the log of `{src.code(softmax)}`", {log: stable})


def _log_of_softmax(src: Source, call: cst.Call) -> cst.Call | None:
    """The softmax call of `torch.log(softmax(...))` / `softmax(...).log()`, else None."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value != "log":
        return None
    if src.code(func.value) == "torch" and len(call.args) == 1 and call.args[0].keyword is None:
        inner = call.args[0].value
    elif not call.args:
        inner = func.value
    else:
        return None
    if isinstance(inner, cst.Call) and callee_name(inner) == "softmax" and isinstance(inner.func, cst.Attribute):
        return inner
    return None
