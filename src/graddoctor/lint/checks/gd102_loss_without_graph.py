"""GD102: the loss passed to backward was cut from the graph (`detach()`, `.data`, a re-wrap, argmax...)."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis, calls_in
from graddoctor.lint.analysis.names import call_name
from graddoctor.lint.analysis.values import back, backward_calls, is_loss_call, is_model_call, step_back
from graddoctor.lint.checks.gd101_loss_is_python_number import REWRAPS, conversion
from graddoctor.lint.reporter import Reporter

CODE = "GD102"
CUTS = {
    "detach": "`detach()` returns a tensor without autograd history",
    "argmax": "argmax returns integer indices, which have no gradient",
    "argmin": "argmin returns integer indices, which have no gradient",
    "round": "rounding has a zero gradient everywhere and ends the graph",
    "long": "an integer cast ends the graph",
    "int": "an integer cast ends the graph",
    "bool": "a bool cast ends the graph",
    "sign": "sign has a zero gradient everywhere",
}


def cut_reason(expr: ast.expr) -> tuple[ast.AST, ast.expr, str] | None:
    """(the cut, the tensor it cuts, why) when `expr` ends the graph."""
    if isinstance(expr, ast.Attribute) and expr.attr == "data":
        return expr, expr.value, "`.data` is a view without autograd history"
    if isinstance(expr, ast.Compare):
        return expr, expr.left, "a comparison returns a bool tensor without gradient"
    if isinstance(expr, ast.Call):
        name = call_name(expr)
        if isinstance(expr.func, ast.Attribute) and name in CUTS:
            return expr, expr.func.value, CUTS[name]
        if name in REWRAPS and expr.args and not any(conversion(n) for n in ast.walk(expr.args[0])):
            return expr, expr.args[0], f"`{name}(...)` copies the values into a new tensor without history"
    return None


def carries_graph(a: FileAnalysis, unit, expr: ast.expr, line: int) -> bool:
    """Whether `expr` is (made from) a model's output or a loss: only then is cutting it a loss of gradient.

    `detach()` of data, or a leaf made from a numpy array, is correct code.
    """
    for value, _ in back(a, unit, expr, line):
        if any(is_model_call(a, c) or is_loss_call(a, c) for c in calls_in(value)):
            return True
    return False


def check(a: FileAnalysis, r: Reporter) -> None:
    for call, recv, ctx in backward_calls(a):
        expr, line = recv, call.lineno
        for _ in range(10):
            found = cut_reason(expr)
            if found is not None:
                node, operand, why = found
                if not carries_graph(a, ctx.unit, operand, line - 1):  # what the name held before this line
                    break
                r.add(
                    CODE,
                    f"The loss passed to backward (line {call.lineno}) has no graph: `{r.segment(node)}` cuts it; {why}.",
                    node,
                    related=[r.related(call.lineno, "backward is called here")],
                    hint="Compute the loss from the model's output tensor directly; drop the `detach()`/`.data`/re-wrap on that path.",
                )
                break
            nxt = step_back(a, ctx.unit, expr, line)
            if nxt is None:
                break
            expr, line = nxt
