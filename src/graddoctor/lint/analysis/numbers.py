"""Python numbers and numpy arrays made from tensors: where a loss leaves autograd.

`t.item()`, `float(t)`, `t.numpy()`, `t.tolist()` give values without history;
arithmetic on them, `np.mean(...)` over them and `torch.tensor(...)` around them
stay without history. `numbers_in` finds the conversion a value is made from,
following names back to their assignments and to what was added into them
(`rl_loss -= log_prob.item() * reward`).
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import CONVERSIONS, NUMBER_BUILTINS

REWRAPS = frozenset({"tensor", "as_tensor", "Tensor", "FloatTensor", "DoubleTensor", "from_numpy", "asarray"})
_DEPTH = 3


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


def augmented(a: FileAnalysis, unit: Unit, key: str) -> list[ast.AugAssign]:
    """`key += ...` / `key -= ...` statements of one unit (index built once per file)."""
    index = a.__dict__.get("_augmented")
    if index is None:
        index = a._augmented = {}  # type: ignore[attr-defined]
        for aug, ctx in a.augassigns:
            target = aug.target
            if type(target) is ast.Name:
                index.setdefault((id(ctx.unit), target.id), []).append(aug)
    return index.get((id(unit), key), [])


def numbers_in(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, carries_graph=None) -> ast.Call | None:
    """The conversion that the value of `expr` is made from, if any (preferring one of a tensor with a graph)."""
    found: list[ast.Call] = []
    _collect(a, unit, expr, line, _DEPTH, found, set())
    if not found:
        return None
    if carries_graph is not None:
        for conv in found:
            inner = conv.func.value if isinstance(conv.func, ast.Attribute) else conv.args[0]
            if carries_graph(a, unit, inner, conv.lineno):
                return conv
    return found[0]


def _collect(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int, found: list, seen: set) -> None:
    for node in ast.walk(expr):
        conv = conversion(node)
        if conv is not None:
            found.append(conv)
            continue
        if depth <= 0 or type(node) is not ast.Name or type(node.ctx) is not ast.Load or node.id in seen:
            continue
        seen.add(node.id)
        b = a.binding_before(unit, node.id, line)
        if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
            _collect(a, unit, b.value, b.line, depth - 1, found, seen)
        for aug in augmented(a, unit, node.id):
            _collect(a, unit, aug.value, aug.lineno, depth - 1, found, seen)


def accumulated_number(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> ast.Call | None:
    """`total = 0; total += t.item()`: a name that starts as a number and only ever adds numbers from tensors."""
    if type(expr) is not ast.Name:
        return None
    b = a.binding_before(unit, expr.id, line)
    if b is None or type(b.value) is not ast.Constant or not isinstance(b.value.value, (int, float)):
        return None
    first = None
    for aug in augmented(a, unit, expr.id):
        conv = next((c for c in map(conversion, ast.walk(aug.value)) if c is not None), None)
        if conv is None:
            return None  # something else is added too: it may be a tensor
        first = first or conv
    return first
