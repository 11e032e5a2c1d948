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
from dataclasses import dataclass

from graddoctor.lint.analysis.constants import live_returns
from graddoctor.lint.analysis.model import FileAnalysis, GradOff, Unit
from graddoctor.lint.analysis.names import CONVERSIONS, NUMBER_BUILTINS, call_name, dotted
from graddoctor.lint.analysis.returns import (
    argument, callee, local_callee, module_forward, passed_to, returned, returned_value, unpacked_index,
)

REWRAPS = frozenset({"tensor", "as_tensor", "Tensor", "FloatTensor", "DoubleTensor", "from_numpy", "asarray"})
_DEPTH = 3


def prediction_round_trip(conv: ast.Call, past_loss_call: bool) -> bool:
    """A `.numpy()` copy of what a loss function is then given (`pred`), not of the loss itself.

    The prediction went out of autograd and came back as a new tensor: the graph was cut on
    the way to the loss, which SPEC names GD102 (a numpy round trip) and which the run reports
    as GD102 at the same line; a loss computed in numpy and re-wrapped stays GD101.
    """
    return past_loss_call and call_name(conv) == "numpy"


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
        if depth <= 0 or type(node) is not ast.Name or type(node.ctx) is not ast.Load:
            continue
        b = a.binding_before(unit, node.id, line)
        if b is not None and b.line == line:  # `loss = torch.tensor(loss)`: the name read is the one bound before
            b = a.binding_before(unit, node.id, line - 1)
        # Seen per binding, not per name: `arr = np.clip(arr, lo, hi)` reads the `arr` bound before it.
        key = (node.id, b.line if b is not None else None)
        if key in seen:
            continue
        seen.add(key)
        if b is not None and isinstance(b.stmt, (ast.Assign, ast.AnnAssign)):
            returned = _helper_return(a, unit, b, node.id)
            if returned is not None:  # `loss, out = self.forward_loss(x, y)`: what the helper returns there
                _collect(a, returned[2], returned[0], returned[1], depth - 1, found, set())
            else:
                _collect(a, unit, b.value, b.line, depth - 1, found, seen)
        if (node.id, "more") in seen:
            continue  # what is added or appended to the name is the same whatever binding was read
        seen.add((node.id, "more"))
        for aug in augmented(a, unit, node.id):
            _collect(a, unit, aug.value, aug.lineno, depth - 1, found, seen)
        # `losses.append(loss.item())` ... `torch.tensor(sum(losses))`: the items collected in a list
        for call in _appended(a, unit, node.id):
            _collect(a, unit, call.args[-1], call.lineno, depth - 1, found, seen)


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


# Tensors made here, from values rather than from another tensor's history.
_TORCH_FACTORIES = frozenset(
    "zeros ones full empty arange linspace logspace eye randn rand randint randperm normal zeros_like ones_like "
    "full_like".split()
)
_GRAPH_DEPTH = 12


def without_graph(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int = _GRAPH_DEPTH, why=None) -> bool:
    """Whether `expr` surely has no autograd history: made only from constants, numbers and new
    tensors built from values (`torch.tensor(...)`), through arithmetic, tensor methods and this
    file's helpers. A function parameter, a global, a loop variable or a leaf built with
    `requires_grad=True` (which may be the very tensor an optimizer trains) is not surely so.

    With a list `why`, the question is the whole loss's (is anything in it left with a graph?), and
    the answer says where each part lost it: values computed with gradient recording off count
    too (a call of a helper decorated `@torch.no_grad()`, a name assigned inside `with
    torch.no_grad():`), and `.detach()`, `.data`, `F.*` functions and losses of such values; each
    cause is added to `why` as a `Cause` (GD110 names the recording switched off, GD102 the cut).
    """
    if depth <= 0:
        return False
    kind = type(expr)
    if kind is ast.Constant:
        return True
    if conversion(expr) is not None:
        if why is not None:
            why.append(Cause("number", expr, unit, line))
        return True
    if why is not None and (kind is ast.Attribute and expr.attr == "data" or kind is ast.Call and _detached(expr)
                            or kind is ast.Call and _indices(expr)):
        why.append(Cause("cut", expr, unit, line))  # `.detach()`, `.data`, argmax indices: cut here
        return True
    if kind is ast.Compare and why is not None:  # `(d2 < 25).float()` of data: a mask without history
        return all(without_graph(a, unit, x, line, depth - 1, why) for x in [expr.left, *expr.comparators])
    if kind is ast.BinOp:
        return without_graph(a, unit, expr.left, line, depth - 1, why) and without_graph(
            a, unit, expr.right, line, depth - 1, why)
    if kind is ast.UnaryOp:
        return without_graph(a, unit, expr.operand, line, depth - 1, why)
    if kind is ast.Subscript:
        return without_graph(a, unit, expr.value, line, depth - 1, why)
    if kind in (ast.Tuple, ast.List):
        return all(without_graph(a, unit, e, line, depth - 1, why) for e in expr.elts)
    if kind is ast.Name:
        return _name_without_graph(a, unit, expr.id, line, depth, why)
    if kind is ast.Call:
        return _call_without_graph(a, unit, expr, line, depth, why)
    if kind is ast.Attribute and expr.attr in ("shape", "ndim"):
        return True  # `x.shape[-1]`: sizes are numbers, whatever `x` is
    if kind is ast.Attribute and why is not None:
        return _number_attribute(a, expr) or _set_in_function(a, unit, expr, line, depth, why)
    return False


@dataclass(frozen=True)
class Cause:
    """Where a part of a value lost its history: `kind` is grad_off, cut, rewrap or number."""

    kind: str
    node: ast.expr
    unit: Unit
    line: int
    off: GradOff | None = None


def _indices(call: ast.Call) -> bool:
    """`x.argmax(dim=-1)`, `torch.argmin(d, 1)`, `x.argsort(dim=-1)`: integer indices, which never have a graph."""
    func = call.func
    if type(func) is not ast.Attribute or func.attr not in ("argmax", "argmin", "argsort"):
        return False
    return dotted(func.value) != "torch" or bool(call.args)


def _detached(call: ast.Call) -> bool:
    func = call.func
    return type(func) is ast.Attribute and func.attr == "detach" and not call.args and dotted(func.value) != "torch"


# Steps back from a loss, through the file's helpers and their parameters, to what it is made from.
_LOSS_DEPTH = 24


def causes_without_graph(a: FileAnalysis, unit: Unit, loss: ast.expr, line: int) -> list[Cause] | None:
    """Where each part of `loss` lost its history, when no part of it keeps any (else None).

    The question the rules ask of a backward whose inline chain showed nothing: GD110 names the
    part computed with recording off, GD102 the cut of a value that had a graph (cached on `a`: both ask).
    """
    memo = a.__dict__.setdefault("_causes_without_graph", {})
    key = (id(unit), id(loss), line)
    if key not in memo:
        why: list[Cause] = []
        memo[key] = why if without_graph(a, unit, loss, line, _LOSS_DEPTH, why) else None
    return memo[key]


_FUNCTIONAL = frozenset({"F", "nn.functional", "torch.nn.functional"})


_SHAPE_QUERIES = frozenset({"size", "dim", "numel", "ndimension", "nelement"})


def _call_without_graph(a: FileAnalysis, unit: Unit, call: ast.Call, line: int, depth: int, why=None) -> bool:
    func = call.func
    name = call_name(call)
    owner = dotted(func.value) if type(func) is ast.Attribute else None
    if any(k.arg == "requires_grad" for k in call.keywords):
        return False  # a new leaf that requires grad: possibly a parameter of its own
    if name in REWRAPS and owner in ("torch", "np", "numpy", None):
        if why is not None and call.args:
            why.append(Cause("rewrap", call, unit, line))
        return True  # torch.tensor(values): a new tensor, whatever the values came from
    if owner == "torch" and name in _TORCH_FACTORIES:
        return True
    if is_number(a, unit, call, line):
        return True
    if type(func) is ast.Attribute and name in _SHAPE_QUERIES and owner != "torch":
        return True  # `pred.size(-1)`, `x.numel()`: a size is a number, whatever the tensor is
    if owner == "torch" or why is not None and owner in _FUNCTIONAL:
        # torch.stack(items), torch.log(x), F.cross_entropy(sim, targets): without history when every input is
        return bool(call.args) and all(without_graph(a, unit, x, line, depth - 1, why) for x in call.args)
    found = callee(a, call, unit)
    if found is None:
        forward = module_forward(a, call)  # `self.criterion(pred, y)`: a module of this file, its forward
        found = (forward, None, 1) if forward is not None else None
    if why is not None and found is not None and id(found[0]) in a.grad_off_of:
        why.append(Cause("grad_off", call, unit, line, a.grad_off_of[id(found[0])]))  # `self.embed(v1)`, embed under @torch.no_grad()
        return True
    if type(func) is ast.Attribute and owner not in _NUMBER_MODULES and name != "requires_grad_" and found is None:
        # a method of a tensor without history (`ret.mean()`, `r.std() + eps`) has none either
        return without_graph(a, unit, func.value, line, depth - 1, why) and all(
            without_graph(a, unit, x, line, depth - 1, why) for x in call.args)
    if found is None:
        return False
    function = found[0]
    inner = a.method_unit(function)
    rets = live_returns(a, function)
    if inner is None or not rets:
        return False
    # the helper's parameters are what this call passes (`temperature ** 2` with `T` given)
    a.__dict__.setdefault("_call_sites", {})[id(inner)] = (call, unit)
    return all(without_graph(a, inner, r.value, r.lineno, depth - 1, why) for r in rets)


def _set_in_function(a: FileAnalysis, unit: Unit, node: ast.Attribute, line: int, depth: int, why) -> bool:
    """`self.cache = self(x).detach()` then `return self.cache` in the same method: the value just assigned."""
    key = dotted(node)
    if key is None or not key.startswith("self.") or not isinstance(unit.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    b = a.binding_before(unit, key, line)
    if b is None or b.line >= line or type(b.stmt) is not ast.Assign or b.value is not b.stmt.value \
            or len(b.stmt.targets) != 1 or b.ctx.loops:
        return False
    return _name_without_graph(a, unit, key, line, depth, why)


def _number_attribute(a: FileAnalysis, node: ast.Attribute) -> bool:
    """`self.t` that every assignment in the file gives a number: a constant, or a parameter whose
    default is one (`self.t = temperature` in `__init__(self, ..., temperature=0.2)`)."""
    key = dotted(node)
    if key is None or not key.startswith("self.") or key.count(".") != 1:
        return False
    found = False
    for u in a.units:
        for b in u.bindings.get(key, ()):
            if not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) or b.value is not b.stmt.value:
                return False
            value = b.value
            if type(value) is ast.Name and isinstance(u.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                value = _default_of(u.node, value.id)
            if type(value) is not ast.Constant or type(value.value) not in (int, float):
                return False
            found = True
    return found


def _default_of(function: ast.FunctionDef, name: str) -> ast.expr | None:
    args = function.args
    positional = args.posonlyargs + args.args
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if arg.arg == name:
            return default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if arg.arg == name:
            return default
    return None


def _name_without_graph(a: FileAnalysis, unit: Unit, key: str, line: int, depth: int, why=None) -> bool:
    b = a.binding_before(unit, key, line)
    if b is not None and b.line == line:
        b = a.binding_before(unit, key, line - 1)
    if b is None and isinstance(unit.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        given = argument(a, unit, key)  # a helper's parameter: what the call we came through passed
        if given is not None:
            return without_graph(a, given[2], given[0], given[1], depth - 1, why)
        # no call was stepped through (the function that calls backward): what every call site passes
        passed = passed_to(a, unit, key) if why is not None else []
        return bool(passed) and all(without_graph(a, u, v, at, depth - 1, why) for v, at, u in passed)
    if b is None or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) or b.value is None:
        return False  # a parameter, a global, a loop variable: whatever it holds
    if why is not None and b.ctx.grad_off is not None and type(b.value) in (ast.Call, ast.BinOp):
        why.append(Cause("grad_off", b.value, unit, b.line, b.ctx.grad_off))  # computed inside `with torch.no_grad():`
        return True
    if isinstance(b.stmt, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in b.stmt.targets) \
            and b.value is b.stmt.value:
        # `returns, rewards = run(policy)`: this name's item of what a helper of this file returns
        found = _helper_return(a, unit, b, key)
        if found is None:
            return why is not None and _unpacked_without_graph(a, unit, b, key, depth, why)
        value, ret_line, inner = found
        if not without_graph(a, inner, value, ret_line, depth - 1, why):
            return False
    elif not without_graph(a, unit, b.value, b.line, depth - 1, why):
        return False
    return all(without_graph(a, unit, aug.value, aug.lineno, depth - 1, why) for aug in augmented(a, unit, key)) and all(
        without_graph(a, unit, c.args[-1], c.lineno, depth - 1, why) for c in _appended(a, unit, key))


def _unpacked_without_graph(a: FileAnalysis, unit: Unit, b, key: str, depth: int, why) -> bool:
    """`b, k, h, w = x.shape` (sizes are numbers); `yy, xx = torch.meshgrid(...)`, `cx, cy = torch.randint(...)`:
    items of what a torch function makes from inputs without history (`torch.randint(8, 24, (2, n))`)."""
    value = b.value
    if type(value) is ast.Attribute and value.attr == "shape":
        return True
    if type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr == "size" and not value.args:
        return True
    if type(value) is ast.Call and type(value.func) is ast.Attribute and dotted(value.func.value) == "torch":
        return _call_without_graph(a, unit, value, b.line, depth - 1, why)
    return False
