"""GD207: keep what is accumulated across iterations without its graph: `total += loss.detach()`,
`outputs.append(out.detach())`, `meter.update([loss.detach()])` where the run saw the loss kept. `.detach()` keeps a tensor, so later uses (`total.item()`) still work."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name

CODE = "GD207"


def edit(finding: Finding, src: Source) -> Change | None:
    small = src.simple_at(finding.line)
    if isinstance(small, cst.AugAssign) and isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)):
        value = small.value
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and callee_name(small.value) in ("append", "extend") \
            and len(small.value.args) == 1:
        value = small.value.args[0].value
    else:
        value = _kept_from(small, src)
        if value is None:
            return None
    if _detached(value):
        return None
    shown = src.code(value)
    wrapped = value if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else cst.parse_expression(f"({shown})")
    new = cst.Call(func=cst.Attribute(value=wrapped, attr=cst.Name("detach")))
    return Change(f"accumulate `{src.code(new)}`", {value: new})


def _detached(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Call) and callee_name(value) in ("detach", "item", "tolist", "cpu") and not value.args


# Calls that store what they are given (a meter's `update`, a history's `append`): where a tensor made
# at the finding's line outlives its iteration when the run saw it alive, and no other place holds it.
_KEEPING = frozenset({"append", "extend", "update", "add", "insert", "push", "put", "record", "store"})


def _kept_from(made: cst.BaseSmallStatement | None, src: Source) -> cst.Name | None:
    """For a finding at the line that makes the tensor (`loss = criterion(...)`), the one place later in the
    same loop that hands it to a keeping call (`meter.update([loss])`, `history.append(loss)`): that
    occurrence of the name. None when there is no such place or more than one."""
    if not (isinstance(made, cst.Assign) and len(made.targets) == 1 and isinstance(made.targets[0].target, cst.Name)):
        return None
    name = made.targets[0].target.value
    loop = src.enclosing(made, (cst.For, cst.While))
    if loop is None:
        return None
    after = src.lines_of(made)[1]
    found = []
    for call in src.nodes(cst.Call):
        if callee_name(call) not in _KEEPING or src.lines_of(call)[0] <= after or src.enclosing(call, (cst.For, cst.While)) is not loop:
            continue
        for arg in call.args:
            items = [e.value for e in arg.value.elements] if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value]
            found += [item for item in items if isinstance(item, cst.Name) and item.value == name]
    return found[0] if len(found) == 1 else None
