"""GD110: the loss, or the forward pass it comes from, was computed with gradient recording off."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import Binding, FileAnalysis, GradOff, Unit, calls_in
from graddoctor.lint.analysis.names import dotted
from graddoctor.lint.analysis.values import backward_calls, is_model_call
from graddoctor.lint.reporter import Reporter

CODE = "GD110"
_DEPTH = 4


_DATA_METHODS = frozenset(
    "to cuda cpu float double half long int bool view reshape unsqueeze squeeze permute flatten contiguous "
    "clone detach next iter len get items keys values".split()
)


def _grad_off_inputs(a: FileAnalysis, unit: Unit, loss: Binding) -> list[Binding] | None:
    """The loss's inputs made under no_grad, when every other input is plain data; else None.

    An input computed outside no_grad by anything but a data method (`.to()`,
    `.view()`...) may carry the graph (a head on frozen features), so we stay silent.
    """
    if any(is_model_call(a, c) for c in calls_in(loss.value)):
        return None  # the loss runs a forward pass itself, outside no_grad
    off: list[Binding] = []
    callees = {id(c.func) for c in calls_in(loss.value)}
    for node in ast.walk(loss.value):
        if not isinstance(node, (ast.Name, ast.Attribute)) or id(node) in callees or not isinstance(node.ctx, ast.Load):
            continue
        key = dotted(node)
        b = a.binding_before(unit, key, loss.line) if key else None
        if b is None or b is loss or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
            continue  # a parameter, a loop variable, a global: data
        if b.ctx.grad_off is not None:
            off.append(b)
        elif any(not (isinstance(c.func, ast.Attribute) and c.func.attr in _DATA_METHODS) for c in calls_in(b.value)):
            return None
    return off or None


def _has_grad_off(unit: Unit) -> bool:
    cached = unit.__dict__.get("_gd_grad_off")
    if cached is None:
        cached = unit._gd_grad_off = any(b.ctx.grad_off for bs in unit.bindings.values() for b in bs)
    return cached


def _decorated_helper(a: FileAnalysis, value: ast.expr) -> tuple[GradOff, ast.Call] | None:
    for node in calls_in(value):
        name = dotted(node.func) or ""
        name = name[5:] if name.startswith("self.") else name
        if name in a.grad_off_functions:
            return a.grad_off_functions[name], node
    return None


def check(a: FileAnalysis, r: Reporter) -> None:
    if not any(word in a.source for word in ("no_grad", "inference_mode", "set_grad_enabled")):
        return
    for call, recv, ctx in backward_calls(a):
        key = dotted(recv)
        loss = a.binding_before(ctx.unit, key, call.lineno) if key else None
        if loss is None or not isinstance(loss.stmt, (ast.Assign, ast.AnnAssign)):
            continue
        if loss.ctx.grad_off is not None:
            _report(r, loss.ctx.grad_off, loss.line, recv, call, f"The loss is computed on line {loss.line}")
            continue
        helper = _decorated_helper(a, loss.value)
        if helper is not None:
            lead = f"The loss comes from `{r.segment(helper[1].func)}()` (line {helper[1].lineno}), which runs"
            _report(r, helper[0], helper[1].lineno, recv, call, lead)
            continue
        if not _has_grad_off(ctx.unit):
            continue
        producers = _grad_off_inputs(a, ctx.unit, loss)
        if producers:
            first = producers[0]
            lead = f"`{first.key}`, which the loss is made from, is computed on line {first.line}"
            _report(r, first.ctx.grad_off, first.line, recv, call, lead)


def _report(r: Reporter, off: GradOff, made: int, recv: ast.expr, call: ast.Call, lead: str) -> None:
    node = ast.Pass(lineno=off.line, col_offset=_indent(r, off.line))
    r.add(
        CODE,
        f"{lead} under {off.how} (line {off.line}), so "
        f"`{r.segment(recv)}` has no graph and backward() cannot reach any parameter.",
        node,
        related=[r.related(made, "computed without gradient recording"), r.related(call.lineno, "backward is called here")],
        hint="Compute the forward pass and the loss outside `torch.no_grad()`/`inference_mode()`; keep no_grad for evaluation, teachers and EMA updates.",
    )


def _indent(r: Reporter, line: int) -> int:
    text = r.lines[line - 1] if 0 < line <= len(r.lines) else ""
    return len(text.encode()) - len(text.lstrip().encode())
