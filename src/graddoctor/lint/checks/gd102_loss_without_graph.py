"""GD102: the loss passed to backward was cut from the graph (`detach()`, `.data`, a re-wrap, argmax...)."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.numbers import REWRAPS, numbers_in, prediction_round_trip
from graddoctor.lint.analysis.values import backward_calls, carries_graph, chain, is_loss_call
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


_FUNCTION_CUTS = frozenset({"argmax", "argmin", "round", "sign"})


def cut_reason(a: FileAnalysis, unit, expr: ast.expr, line: int,
               past_loss_call: bool = False) -> tuple[ast.AST, ast.expr, str] | None:
    """(the cut, the tensor it cuts, why) when `expr` ends the graph.

    `past_loss_call`: the chain from backward() already went through a loss function, so
    `expr` is what the loss function was given (the prediction), not the loss itself.
    """
    if isinstance(expr, ast.Attribute) and expr.attr == "data":
        return expr, expr.value, "`.data` is a view without autograd history"
    if isinstance(expr, ast.Compare):
        return expr, expr.left, "a comparison returns a bool tensor without gradient"
    if isinstance(expr, ast.Call):
        name = call_name(expr)
        func = expr.func
        if isinstance(func, ast.Attribute) and name in CUTS and dotted(func.value) != "torch":
            return expr, func.value, CUTS[name]
        if name in _FUNCTION_CUTS and expr.args and (dotted(func) in ("round", f"torch.{name}")):
            return expr, expr.args[0], CUTS[name]  # torch.argmax(logits, 1), round(p)
        if name in REWRAPS and expr.args:
            numbers = numbers_in(a, unit, expr.args[0], line)
            if numbers is None:
                return expr, expr.args[0], f"`{name}(...)` copies the values into a new tensor without history"
            if prediction_round_trip(numbers, past_loss_call):
                source = numbers.func.value  # type: ignore[union-attr]
                while (isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute)
                       and source.func.attr in ("detach", "cpu", "clone", "contiguous")):
                    source = source.func.value  # `out.detach().cpu().numpy()`: the tensor is `out`
                return numbers, source, (
                    f"a numpy round trip: `.numpy()` copies the values out of autograd and `{name}(...)` "
                    "(line {}) makes a new tensor of them without history".format(expr.lineno))
    return None


def check(a: FileAnalysis, r: Reporter) -> None:
    for call, recv, ctx in backward_calls(a):
        past_loss = False
        for expr, line, unit in chain(a, ctx.unit, recv, call.lineno):
            found = cut_reason(a, unit, expr, line, past_loss)
            past_loss = past_loss or (isinstance(expr, ast.Call) and is_loss_call(a, expr))
            if found is None:
                continue
            node, operand, why = found
            if carries_graph(a, unit, operand, line - 1):  # what the name held before this line
                hint = _hint(node)
                r.add(
                    CODE,
                    f"The loss passed to backward (line {call.lineno}) has no graph: `{r.segment(node)}` cuts it; {why}.",
                    node,
                    related=[r.related(call.lineno, "backward is called here")],
                    hint=hint,
                )
            break


_DISCRETE = frozenset({"argmax", "argmin", "round", "sign", "long", "int", "bool"})


def _hint(cut: ast.AST) -> str:
    """The fix depends on the cut: a detach is dropped, a discrete value is replaced by the continuous one."""
    if isinstance(cut, ast.Compare) or (isinstance(cut, ast.Call) and call_name(cut) in _DISCRETE):
        return (
            "Compute the loss from the continuous output (logits or probabilities), e.g. "
            "`F.cross_entropy(logits, y)` or `F.binary_cross_entropy_with_logits(out, y)`; "
            "keep argmax/round/comparisons/integer casts for metrics."
        )
    return "Compute the loss from the model's output tensor directly; drop the `detach()`/`.data`/re-wrap on that path."
