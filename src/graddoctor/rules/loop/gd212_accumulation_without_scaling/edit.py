"""GD212: divide the micro-batch loss by the accumulation count where it is backpropagated:
`loss.backward()` becomes `(loss / accum_steps).backward()` (and `scaler.scale(loss)` becomes
`scaler.scale(loss / accum_steps)`), in the name the step's `if (i + 1) % accum_steps == 0` uses, or
the count measured at runtime when the source names none."""

from __future__ import annotations

import libcst as cst

from graddoctor.finding import Finding
from graddoctor.editing.source import Change, Source, callee_name, expression, receiver

CODE = "GD212"


def edit(finding: Finding, src: Source) -> Change | None:
    calls = src.calls_at(finding.line, "backward")
    if len(calls) != 1:
        return None
    loss, argument = receiver(calls[0]), False
    if isinstance(loss, cst.Call) and callee_name(loss) == "scale" and len(loss.args) == 1:
        loss, argument = loss.args[0].value, True  # scaler.scale(loss): divide what the scaler is given
    if loss is None or "/" in src.code(loss):
        return None
    divisor = _divisor(finding, src)
    if divisor is None:
        return None
    atom = src.code(loss) if isinstance(loss, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) else f"({src.code(loss)})"
    scaled = expression(f"{atom} / {divisor}" if argument else f"({atom} / {divisor})")
    return Change(f"divide the loss by the accumulation count: `{atom} / {divisor}`", {loss: scaled})


def _divisor(finding: Finding, src: Source) -> str | None:
    """`accum_steps` from the step's `if (i + 1) % accum_steps == 0`, else the measured count."""
    step_lines = {r.line for r in finding.related}
    for call in (c for line in step_lines for c in src.calls_at(line, "step")):
        guard = src.enclosing(call, cst.If)
        name = _modulus(guard.test) if guard is not None else None
        if name is not None:
            return src.code(name)
    count = finding.evidence.get("backwards_per_step")
    return str(count) if isinstance(count, int) and count >= 2 else None


def _modulus(test: cst.BaseExpression) -> cst.BaseExpression | None:
    """The `N` of `... % N == 0` when it is a name or an attribute (`self.accum_steps`)."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    left = test.left
    while isinstance(left, cst.BinaryOperation) and not isinstance(left.operator, cst.Modulo):
        left = left.left
    if isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Modulo) and \
            isinstance(left.right, (cst.Name, cst.Attribute)):
        return left.right
    return None
