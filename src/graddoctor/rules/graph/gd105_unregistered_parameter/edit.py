"""GD105: register what the model holds: a plain list/dict of layers becomes `nn.ModuleList`/`nn.ModuleDict`,
a tensor attribute created with `requires_grad=True` becomes an `nn.Parameter`."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.shape import nn_prefix
from graddoctor.editing.source import Change, Source, expression

CODE = "GD105"


def edit(finding: Finding, src: Source) -> Change | None:
    assign = src.simple_at(finding.line)
    if not isinstance(assign, (cst.Assign, cst.AnnAssign)) or assign.value is None:
        return None
    value, nn = assign.value, nn_prefix(src)
    if isinstance(value, (cst.List, cst.ListComp)):
        wrapper = f"{nn}.ModuleList"
    elif isinstance(value, (cst.Dict, cst.DictComp)):
        wrapper = f"{nn}.ModuleDict"
    elif isinstance(value, cst.Call) and _requires_grad(value) is not None:
        kept = [a for a in value.args if a is not _requires_grad(value)]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        inner = value.with_changes(args=kept)
        new = cst.Call(func=expression(f"{nn}.Parameter"), args=[cst.Arg(inner)])
        return Change(f"register it as `{nn}.Parameter`", {value: new})
    else:
        return None
    return Change(f"wrap it in `{wrapper}`", {value: cst.Call(func=expression(wrapper), args=[cst.Arg(value)])})


def _requires_grad(call: cst.Call) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "requires_grad" and isinstance(arg.value, cst.Name) \
                and arg.value.value == "True":
            return arg
    return None
