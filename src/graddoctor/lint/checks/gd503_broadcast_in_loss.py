"""GD503: an (N, 1) model output against an (N,) target in a regression loss, built-in or hand-written.

Static shapes are rarely known, so this fires only when the file shows both:
the prediction comes from a model whose last layer is `nn.Linear(k, 1)` (its
class's `forward` or an `nn.Sequential` in this file), unreshaped, and the
target is plainly one-dimensional: a column picked with `data[:, j]`, a
1-D factory call `torch.randn(n)`, or a reduction over dim 1 without keepdim.
"""

from __future__ import annotations

import ast
import re

from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import call_name, dotted, keyword, strip_to
from graddoctor.lint.analysis.scan import lines_matching, walk_lines
from graddoctor.lint.analysis.values import is_model_call
from graddoctor.lint.checks._model_outputs import made_by
from graddoctor.lint.reporter import Reporter

CODE = "GD503"
_FUNCTIONS = frozenset({"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"})
_MODULES = frozenset({"MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss"})
_FACTORIES = frozenset({"randn", "rand", "zeros", "ones", "empty", "arange", "linspace", "randint"})
_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "norm", "prod", "logsumexp"})
_DEPTH = 6


def _regression_loss(a: FileAnalysis, call: ast.Call) -> bool:
    name = call_name(call)
    if name in _FUNCTIONS:
        return True
    if isinstance(call.func, ast.Call):
        return call_name(call.func) in _MODULES
    key = dotted(call.func)
    return bool(key) and a.names.of(key) == "loss" and a.names.cls.get(key) in _MODULES


def _one_output_model(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> bool:
    """The prediction is a model call, unreshaped, whose last layer is nn.Linear(k, 1)."""
    origin = _origin(a, unit, expr, line)
    if not (isinstance(origin, ast.Call) and is_model_call(a, origin)):
        return False
    outputs = made_by(a, unit, origin, line)
    return bool(outputs) and all(_linear_to_one(o) for o in outputs)


def _origin(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> ast.expr | None:
    """Follow plain names (no reshapes) to the expression that made `expr`."""
    for _ in range(_DEPTH):
        expr = strip_to(expr)
        key = dotted(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
        if key is None:
            return expr
        b = a.binding_before(unit, key, line)
        if b is None or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) or b.line > line:
            return None
        if b.value is getattr(b.stmt, "value", None) and any(
            isinstance(t, (ast.Tuple, ast.List)) for t in getattr(b.stmt, "targets", ())
        ):
            return None
        expr, line = b.value, b.line
    return None


def _linear_to_one(expr: ast.expr) -> bool:
    if not (isinstance(expr, ast.Call) and call_name(expr) == "Linear"):
        return False
    out = expr.args[1] if len(expr.args) > 1 else keyword(expr, "out_features")
    return isinstance(out, ast.Constant) and out.value == 1


def _one_dimensional(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> bool:
    origin = _origin(a, unit, expr, line)
    for _ in range(3):  # y[i:i + 32] keeps what y is
        if isinstance(origin, ast.Subscript) and isinstance(origin.slice, ast.Slice):
            origin = _origin(a, unit, origin.value, line)
    if isinstance(origin, ast.Subscript) and isinstance(origin.slice, ast.Tuple):
        parts = origin.slice.elts
        # data[:, -1] or data[i:j, 3]: one column of a table, a 1-D target
        return len(parts) == 2 and isinstance(parts[0], ast.Slice) and _int_constant(parts[1])
    if not isinstance(origin, ast.Call):
        return False
    name = call_name(origin)
    if name in _FACTORIES and isinstance(origin.func, ast.Attribute) and dotted(origin.func.value) == "torch":
        sizes = [arg for arg in origin.args if not isinstance(arg, ast.Starred)]
        if name == "randint":
            size = sizes[-1] if sizes else keyword(origin, "size")
            return isinstance(size, ast.Tuple) and len(size.elts) == 1
        if name in ("arange", "linspace"):
            return True
        return len(sizes) == 1 and not isinstance(sizes[0], (ast.Tuple, ast.List)) and not keyword(origin, "size")
    if name in _REDUCTIONS and isinstance(origin.func, ast.Attribute):
        dim = origin.args[0] if origin.args else keyword(origin, "dim")
        keep = keyword(origin, "keepdim")
        keeps = isinstance(keep, ast.Constant) and keep.value is True
        return isinstance(dim, ast.Constant) and dim.value in (1, -1) and not keeps and _two_dimensional_input(origin)
    return False


def _two_dimensional_input(call: ast.Call) -> bool:
    """`x.sum(1)` gives (N,) only from an (N, D) x: accept when x is a plain batch name (not provable, common)."""
    return isinstance(call.func, ast.Attribute) and isinstance(call.func.value, (ast.Name, ast.Subscript))


_POWER = re.compile(r"\)\s*\*\*")  # `(a - b) ** 2`; not `**kwargs`


def _int_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _difference(expr: ast.expr) -> ast.BinOp | None:
    """`(a - b) ** 2`, `(a - b).pow(2)`, `(a - b).abs()`, `torch.abs(a - b)`, `torch.square(a - b)`."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Pow):
        inner = expr.left
    elif isinstance(expr, ast.Call) and call_name(expr) in ("pow", "abs", "square"):
        if isinstance(expr.func, ast.Attribute) and dotted(expr.func.value) in ("torch",):
            inner = expr.args[0] if expr.args else None
        elif isinstance(expr.func, ast.Attribute):
            inner = expr.func.value
        else:
            return None
    else:
        return None
    return inner if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub) else None


def check(a: FileAnalysis, r: Reporter) -> None:
    if "Linear" not in a.source:
        return
    pairs: list[tuple[ast.AST, ast.expr, ast.expr, object]] = []
    for call, ctx in a.calls:
        if len(call.args) >= 2 and _regression_loss(a, call):
            pairs.append((call, call.args[0], call.args[1], ctx))
        diff = _difference(call)
        if diff is not None:
            pairs.append((call, diff.left, diff.right, ctx))
    if "**" in a.source:
        for node in walk_lines(a.tree, lines_matching(a.source, _POWER)):
            diff = _difference(node) if type(node) is ast.BinOp else None
            if diff is not None:
                pairs.append((node, diff.left, diff.right, None))
    for node, pred, target, ctx in pairs:
        unit = ctx.unit if ctx is not None else _unit_of(a, node)
        if unit is None:
            continue
        line = node.lineno
        if _one_output_model(a, unit, pred, line) and _one_dimensional(a, unit, target, line):
            r.add(
                CODE,
                f"`{r.segment(pred)}` comes from a model whose last layer is `nn.Linear(..., 1)`, shape (N, 1), and "
                f"`{r.segment(target)}` is one-dimensional, shape (N,): they broadcast to (N, N), so every prediction is "
                "compared with every target instead of its own.",
                node,
                hint=f"Give both the same shape: `{r.segment(pred)}.squeeze(-1)` (or `{r.segment(target)}.unsqueeze(-1)`).",
            )


def _unit_of(a: FileAnalysis, node: ast.AST) -> Unit | None:
    best = None
    for unit in a.units:
        start = getattr(unit.node, "lineno", 0)
        end = getattr(unit.node, "end_lineno", 10**9)
        if start <= node.lineno <= end and (best is None or start >= getattr(best.node, "lineno", 0)):
            best = unit
    return best
