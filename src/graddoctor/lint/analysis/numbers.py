"""Python numbers and numpy arrays made from tensors: where a loss leaves autograd.

`t.item()`, `float(t)`, `t.numpy()`, `t.tolist()` give values without history;
arithmetic on them, `np.mean(...)` over them and `torch.tensor(...)` around them
stay without history. `numbers_in` finds the conversion a value is made from,
following names back to their assignments and to what was added into them
(`rl_loss -= log_prob.item() * reward`).

`gives_number` answers the converse question for this file's helpers: does a
call return a plain number (an evaluation helper that sums `loss.item()` and
divides by `len(loader)`), so that what it returns is surely no tensor with a
graph? Anything it cannot see through counts as "not surely a number".
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import CONVERSIONS, NUMBER_BUILTINS, call_name, dotted
from graddoctor.lint.analysis.returns import local_callee, returned, returned_value, unpacked_index

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
    index = _unit_index(
        a, "_augmented", ((ctx.unit, aug.target.id, aug) for aug, ctx in a.augassigns if type(aug.target) is ast.Name)
    )
    return index.get((id(unit), key), [])


def _unit_index(a: FileAnalysis, name: str, entries) -> dict:
    """`(id(unit), key) -> [nodes]` built once per file from `(unit, key, node)` entries, cached on `a` as `name`."""
    index = a.__dict__.get(name)
    if index is None:
        index = {}
        for unit, key, node in entries:
            index.setdefault((id(unit), key), []).append(node)
        a.__dict__[name] = index
    return index


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
        if b is not None and b.line == line:  # `loss = torch.tensor(loss)`: the name read is the one bound before
            b = a.binding_before(unit, node.id, line - 1)
        if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
            returned = _helper_return(a, unit, b, node.id)
            if returned is not None:  # `loss, out = self.forward_loss(x, y)`: what the helper returns there
                _collect(a, returned[2], returned[0], returned[1], depth - 1, found, set())
            else:
                _collect(a, unit, b.value, b.line, depth - 1, found, seen)
        for aug in augmented(a, unit, node.id):
            _collect(a, unit, aug.value, aug.lineno, depth - 1, found, seen)


def _helper_return(a: FileAnalysis, unit: Unit, b, key: str):
    """The value a helper of this file returns into binding `b` (its item for `key` when unpacked), or None."""
    if type(b.value) is not ast.Call:
        return None
    index = unpacked_index(b.stmt, key)
    if index == -1:
        return None
    return returned_value(a, b.value, unit, index)


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


# Builtins and modules whose results are plain numbers when their arguments are.
_NUMBER_OF_NUMBERS = frozenset({"sum", "min", "max", "abs", "round", "mean", "median", "fsum", "prod"})
_NUMBER_MODULES = frozenset({"math", "np", "numpy", "statistics"})
_NUMBER_DEPTH = 4


def gives_number(a: FileAnalysis, call: ast.Call, unit: Unit, index: int | None = None) -> bool:
    """Whether `call` runs a helper of this file whose every `return` is a plain number (its `index`-th item)."""
    function = local_callee(a, call, unit)
    if function is None:
        return False
    memo = a.__dict__.setdefault("_gives_number", {})
    key = (id(function), index)
    if key not in memo:
        memo[key] = False  # a recursive helper is not judged through itself
        memo[key] = _returns_number(a, function, index)
    return memo[key]


def _returns_number(a: FileAnalysis, function: ast.AST, index: int | None) -> bool:
    inner = a.method_unit(function)
    rets = returned(a, function)
    if inner is None or not rets:
        return False
    for ret in rets:
        value = ret.value
        if index is not None:
            if type(value) is not ast.Tuple or index >= len(value.elts) or any(type(e) is ast.Starred for e in value.elts):
                return False
            value = value.elts[index]
        if not is_number(a, inner, value, ret.lineno):
            return False
    return True


def is_number(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int = _NUMBER_DEPTH, seen=None) -> bool:
    """Whether `expr` is surely a plain Python number (or a tuple or list of them): never a tensor."""
    kind = type(expr)
    if kind is ast.Constant:
        return isinstance(expr.value, (int, float)) or expr.value is None  # `best = None`: no tensor either
    if conversion(expr) is not None:
        return True
    if depth <= 0:
        return False
    if kind is ast.BinOp:
        return is_number(a, unit, expr.left, line, depth - 1, seen) and is_number(a, unit, expr.right, line, depth - 1, seen)
    if kind is ast.UnaryOp:
        return is_number(a, unit, expr.operand, line, depth - 1, seen)
    if kind is ast.IfExp:
        return is_number(a, unit, expr.body, line, depth - 1, seen) and is_number(a, unit, expr.orelse, line, depth - 1, seen)
    if kind in (ast.Tuple, ast.List):
        return all(is_number(a, unit, e, line, depth - 1, seen) for e in expr.elts)
    if kind is ast.Call:
        return _number_call(a, unit, expr, line, depth, seen)
    if kind is ast.Name:
        return _number_name(a, unit, expr.id, depth, seen)
    return False


def _number_call(a: FileAnalysis, unit: Unit, call: ast.Call, line: int, depth: int, seen) -> bool:
    name = call_name(call)
    func = call.func
    if type(func) is ast.Name and name == "len":
        return True
    owner = dotted(func.value) if type(func) is ast.Attribute else None
    if (type(func) is ast.Name and name in _NUMBER_OF_NUMBERS) or owner in _NUMBER_MODULES:
        # `sum(losses) / len(losses)`, `np.mean(scores)`, `math.exp(avg)`: numbers when what goes in is
        return bool(call.args) and all(is_number(a, unit, x, line, depth - 1, seen) for x in call.args)
    return gives_number(a, call, unit)


def _number_name(a: FileAnalysis, unit: Unit, key: str, depth: int, seen) -> bool:
    """Every value the name is given in its function is a number (`total = 0.0; total += loss.item()`),
    and every item appended to it is one (`losses = []; losses.append(loss.item())`)."""
    seen = set() if seen is None else seen
    if key in seen:
        return True  # `total = total + x`: judged by its other parts
    seen.add(key)
    bindings = unit.bindings.get(key)
    if not bindings:
        return False  # a parameter or a global: whatever the caller passed
    for b in bindings:
        if not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) or b.value is None:
            return False
        unpacked = isinstance(b.stmt, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in b.stmt.targets)
        if unpacked and type(b.value) is ast.Call:  # `loss, acc = evaluate(...)` (`a, b = 0, []` binds each item)
            if not _unpacked_number(a, unit, b, key):
                return False
        elif not is_number(a, unit, b.value, b.line, depth - 1, seen):
            return False
    for aug in augmented(a, unit, key):
        if not is_number(a, unit, aug.value, aug.lineno, depth - 1, seen):
            return False
    for call in _appended(a, unit, key):
        if not is_number(a, unit, call.args[-1], call.lineno, depth - 1, seen):
            return False
    return True


def _appended(a: FileAnalysis, unit: Unit, key: str) -> list[ast.Call]:
    """`key.append(x)` calls of one unit (index built once per file)."""
    index = _unit_index(
        a,
        "_appended",
        (
            (ctx.unit, dotted(call.func.value), call)
            for call, ctx in a.calls
            if type(call.func) is ast.Attribute and call.func.attr in ("append", "extend", "insert") and call.args
        ),
    )
    return index.get((id(unit), key), [])


def _unpacked_number(a: FileAnalysis, unit: Unit, b, key: str) -> bool:
    """`loss, acc = evaluate(...)`: this name's item of what the helper returns is a number."""
    index = unpacked_index(b.stmt, key)
    return index is not None and index >= 0 and gives_number(a, b.value, unit, index)
