"""GD108: compute it out of place, so the tensor autograd saved keeps its values: `gate *= mask` becomes
`gate = gate * mask`, `out.add_(identity)` becomes `out = out.add(identity)`. Only a plain name changed by its
own statement; an indexed write (`x[mask] = 0`) or an in-place op on an attribute gets no edit (other
holders of the tensor would no longer see the change)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, expression

CODE = "GD108"
# in-place methods whose out-of-place twin takes the same arguments
_METHODS = ("add_", "sub_", "mul_", "div_", "clamp_", "clamp_min_", "clamp_max_", "relu_", "sigmoid_", "tanh_",
            "exp_", "pow_", "abs_", "neg_", "masked_fill_", "sqrt_", "log_", "t_", "squeeze_", "unsqueeze_",
            "addcmul_", "addcdiv_", "lerp_")
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)


def edit(finding: Finding, src: Source) -> Change | None:
    small = src.simple_at(finding.line)
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        symbol = src.code(small.operator).strip()[:-1]  # "*=" -> "*"
        right = src.code(small.value) if isinstance(small.value, _ATOMS) else f"({src.code(small.value)})"
        new = cst.Assign(targets=[cst.AssignTarget(small.target)],
                         value=expression(f"{small.target.value} {symbol} {right}"))
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and isinstance(small.value.func, cst.Attribute) \
            and isinstance(small.value.func.value, cst.Name) and small.value.func.attr.value in _METHODS:
        call = small.value
        out_of_place = call.with_changes(func=call.func.with_changes(attr=cst.Name(call.func.attr.value[:-1])))
        new = cst.Assign(targets=[cst.AssignTarget(call.func.value)], value=out_of_place)
    else:
        return None
    return Change(f"compute `{src.code(new.targets[0].target)}` out of place", {small: new})
