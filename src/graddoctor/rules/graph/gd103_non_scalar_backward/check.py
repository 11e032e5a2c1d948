"""GD103: backward on a per-sample loss (`reduction='none'`) without `gradient=`."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import dotted, keyword
from graddoctor.lint.analysis.returns import returned_value
from graddoctor.lint.analysis.values import backward_calls, binding_of, is_loss_call, item_of
from graddoctor.lint.reporter import Reporter

CODE = "GD103"
_PASS_THROUGH = frozenset({"to", "float", "double", "cuda", "cpu", "view", "reshape", "squeeze", "contiguous"})


_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def _is_none(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and value.value == "none"


def _per_sample(a: FileAnalysis, call: ast.Call) -> bool:
    if not is_loss_call(a, call):
        return False
    if _is_none(keyword(call, "reduction")):
        return True
    key = dotted(call.func)
    made = a.names.call.get(key) if key else None
    return made is not None and _is_none(keyword(made, "reduction"))


def check(a: FileAnalysis, r: Reporter) -> None:
    if "none" not in a.source:
        return
    for call, recv, ctx in backward_calls(a):
        if call.args or call.keywords:
            continue  # backward(gradient=...) handles non-scalar outputs
        todo = [(recv, call.lineno, ctx.unit)]
        for _ in range(12):
            if not todo:
                break
            expr, line, unit = todo.pop()
            if isinstance(expr, ast.Call) and _per_sample(a, expr):
                r.add(
                    CODE,
                    f"backward() is called on `{r.segment(recv)}`, a per-sample loss made with reduction='none' "
                    f"(line {line}); backward needs a scalar.",
                    call,
                    related=[r.related(line, "the per-sample loss is made here")],
                    hint=f"Reduce it first: `{r.segment(recv)}.mean().backward()` (or pass `gradient=`).",
                )
                break
            if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _PASS_THROUGH:
                todo.append((expr.func.value, line, unit))
            elif isinstance(expr, ast.BinOp) and type(expr.op) in _ELEMENTWISE:  # `losses * weights`: still per sample
                todo += [(expr.right, line, unit), (expr.left, line, unit)]
            elif isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr):
                b = binding_of(a, unit, dotted(expr), expr, line)  # `x = x * mask`: the `x` before
                if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
                    todo.append((b.value, b.line, unit))
            elif isinstance(expr, ast.Subscript):  # `out["loss"]` of a helper's dict
                item = item_of(a, unit, expr, line)
                if item is not None:
                    todo.append(item)
            elif isinstance(expr, ast.Call):
                inner = returned_value(a, expr, unit)
                if inner is not None:
                    todo.append(inner)
