"""GD503: make the target the prediction's shape before they meet: `y` becomes `y.reshape_as(pred)`,
in a built-in loss (`mse_loss(pred, y)`) or a hand-written one (`(pred - y) ** 2`)."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, expression

CODE = "GD503"
_LOSSES = ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss")


def edit(finding: Finding, src: Source) -> Change | None:
    pairs = []
    for diff in src.nodes(cst.BinaryOperation):
        if isinstance(diff.operator, cst.Subtract) and src.lines_of(diff)[0] == finding.line:
            pairs.append((diff.left, diff.right))
    for call in src.calls_at(finding.line):
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        if _loss_call(src, call) and len(positional) == 2:
            pairs.append((positional[0], positional[1]))
    if len(pairs) != 1:
        return None
    pred, target = pairs[0]
    if "reshape_as" in src.code(target) or "view_as" in src.code(target):
        return None
    shaped = expression(f"{_atom(src, target)}.reshape_as({src.code(pred)})")
    return Change(f"reshape the target like the prediction: `{src.code(shaped)}`", {target: shaped})


def _loss_call(src: Source, call: cst.Call) -> bool:
    name = src.code(call.func).rsplit(".", 1)[-1]
    return name in _LOSSES or name in ("criterion", "loss_fn", "loss_func")


def _atom(src: Source, node: cst.BaseExpression) -> str:
    text = src.code(node)
    return text if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) else f"({text})"
