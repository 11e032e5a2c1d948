"""GD101: backward on a Python number, or a loss rebuilt from numbers (`.item()`, `float()`...)."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import CONVERSIONS, NUMBER_BUILTINS, call_name
from graddoctor.lint.analysis.values import backward_calls, step_back
from graddoctor.lint.reporter import Reporter

CODE = "GD101"
REWRAPS = frozenset({"tensor", "as_tensor", "Tensor", "FloatTensor", "DoubleTensor", "from_numpy", "asarray"})


def conversion(node: ast.AST) -> ast.Call | None:
    """`t.item()`, `t.tolist()`, `t.numpy()`, `float(t)`, `int(t)`: a tensor turned into numbers."""
    if type(node) is not ast.Call:
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in CONVERSIONS and not node.args:
        return node
    if isinstance(func, ast.Name) and func.id in NUMBER_BUILTINS and len(node.args) == 1:
        arg = node.args[0]
        if not isinstance(arg, ast.Constant):
            return node
    return None


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
        expr, line = recv, call.lineno
        for _ in range(8):
            conv = conversion(expr) or _numbers_only(expr)
            if conv is None and isinstance(expr, ast.Call) and call_name(expr) in REWRAPS and expr.args:
                conv = next((c for c in map(conversion, ast.walk(expr.args[0])) if c), None)
            if conv is not None:
                _report(r, conv, call, recv, expr is recv)
                break
            nxt = step_back(a, ctx.unit, expr, line)
            if nxt is None:
                break
            expr, line = nxt


def _report(r: Reporter, conv: ast.Call, backward: ast.Call, recv: ast.expr, direct: bool) -> None:
    what = r.segment(conv)
    inner = conv.func.value if isinstance(conv.func, ast.Attribute) else conv.args[0]
    tensor = r.segment(inner)
    fix = None
    if direct and conv is recv:
        fix = r.fix_for(conv, tensor, f"call backward on `{tensor}` itself")
        message = f"`{what}` is a Python number, so `.backward()` on it fails: it has no autograd graph."
    else:
        message = (
            f"The loss passed to backward (line {backward.lineno}) is built from `{what}`, a Python number "
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
