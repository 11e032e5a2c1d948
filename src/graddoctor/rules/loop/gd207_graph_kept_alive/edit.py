"""GD207: keep what is accumulated across iterations without its graph: `total += loss.detach()`,
`outputs.append(out.detach())`. `.detach()` keeps a tensor, so later uses (`total.item()`) still work."""

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
        return None
    if _detached(value):
        return None
    shown = src.code(value)
    wrapped = value if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else cst.parse_expression(f"({shown})")
    new = cst.Call(func=cst.Attribute(value=wrapped, attr=cst.Name("detach")))
    return Change(f"accumulate `{src.code(new)}`", {value: new})


def _detached(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Call) and callee_name(value) in ("detach", "item", "tolist", "cpu") and not value.args
