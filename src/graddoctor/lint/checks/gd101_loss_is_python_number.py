"""GD101: backward on a Python number, or a loss rebuilt from numbers (`.item()`, `float()`, numpy...)."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name
from graddoctor.lint.analysis.numbers import REWRAPS, accumulated_number, conversion, numbers_in
from graddoctor.lint.analysis.values import backward_calls, carries_graph, chain
from graddoctor.lint.reporter import Reporter

CODE = "GD101"
__all__ = ["CODE", "REWRAPS", "check", "conversion"]  # GD102 reads the conversions from here


def _numbers_only(expr: ast.expr) -> ast.Call | None:
    """The first conversion in arithmetic made only of conversions and constants, else None."""
    if isinstance(expr, ast.BinOp):
        left, right = _numbers_only(expr.left), _numbers_only(expr.right)
        left_ok = left is not None or isinstance(expr.left, ast.Constant)
        right_ok = right is not None or isinstance(expr.right, ast.Constant)
        return (left or right) if left_ok and right_ok else None
    return conversion(expr)


def check(a: FileAnalysis, r: Reporter) -> None:
    if not any(word in a.source for word in ("item(", "float(", "tolist(", "numpy(", "int(")):
        return
    for call, recv, ctx in backward_calls(a):
        for expr, line, unit in chain(a, ctx.unit, recv, call.lineno, 8):
            conv = conversion(expr) or _numbers_only(expr) or accumulated_number(a, unit, expr, line)
            if conv is None and isinstance(expr, ast.Call) and call_name(expr) in REWRAPS and expr.args:
                conv = numbers_in(a, unit, expr.args[0], line, carries_graph)
            if conv is not None:
                _report(r, conv, call, recv, expr is recv)
                break


def _report(r: Reporter, conv: ast.Call, backward: ast.Call, recv: ast.expr, direct: bool) -> None:
    what = r.segment(conv)
    number = {"numpy": "a numpy array", "tolist": "a Python list"}.get(call_name(conv), "a Python number")
    inner = conv.func.value if isinstance(conv.func, ast.Attribute) else conv.args[0]
    tensor = r.segment(inner)
    fix = None
    if direct and conv is recv:
        fix = r.fix_for(conv, tensor, f"call backward on `{tensor}` itself")
        message = f"`{what}` is a Python number, so `.backward()` on it fails: it has no autograd graph."
    else:
        message = (
            f"The loss passed to backward (line {backward.lineno}) is built from `{what}`, {number} "
            "without autograd history, so no gradient reaches the model."
        )
    r.add(
        CODE,
        message,
        conv,
        related=[r.related(backward.lineno, "backward is called here")],
        hint=f"Keep `{tensor}` as a tensor for the loss and call `backward()` on it; use `.item()` only for logging.",
        fix=fix,
    )
