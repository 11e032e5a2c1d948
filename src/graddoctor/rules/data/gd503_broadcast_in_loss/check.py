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

from graddoctor.lint.analysis.constants import constant
from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import call_name, dotted, keyword, strip_to
from graddoctor.lint.analysis.returns import (
    instance_class, local_callee, passed_to, returned, returned_value, unpacked_index,
)
from graddoctor.lint.analysis.scan import lines_matching, walk_lines
from graddoctor.lint.analysis.values import is_model_call
from graddoctor.lint.analysis.model_outputs import made_by
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
    return bool(outputs) and all(_linear_to_one(o, a) for o in outputs)


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


def _linear_to_one(expr: ast.expr, a: FileAnalysis | None = None) -> bool:
    """`nn.Linear(k, 1)`; with `a`, also a width the file fixes elsewhere (`nn.Linear(h, cfg.n_outputs)` where the
    config's field defaults to 1 and no construction says otherwise)."""
    if not (isinstance(expr, ast.Call) and call_name(expr) == "Linear"):
        return False
    out = expr.args[1] if len(expr.args) > 1 else keyword(expr, "out_features")
    if isinstance(out, ast.Constant) or out is None or a is None:
        return isinstance(out, ast.Constant) and out.value == 1
    unit = _unit_of(a, expr)
    value = constant(a, unit, out, expr.lineno) if unit is not None else None
    return type(value) is int and value == 1


def _one_dimensional(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int = 8,
                     datasets: bool = True) -> bool:
    if datasets and (_scalar_dataset_item(a, unit, expr, line, depth) or _tensor_dataset_item(a, unit, expr, line, depth)):
        return True
    origin = _origin(a, unit, expr, line)
    if origin is None and depth > 0:
        return _one_dimensional_elsewhere(a, unit, expr, line, depth - 1)
    if isinstance(origin, ast.Call) and depth > 0:
        func = origin.func
        name = call_name(origin)
        if name in _SAME_SHAPE and isinstance(func, ast.Attribute) and dotted(func.value) == "torch" and origin.args:
            return _one_dimensional(a, unit, origin.args[0], line, depth - 1, datasets)  # torch.zeros_like(rewards)
        if name in _SAME_SHAPE_METHODS and isinstance(func, ast.Attribute) and dotted(func.value) not in _MODULES_OF_FUNCTIONS:
            return _one_dimensional(a, unit, func.value, line, depth - 1, datasets)  # rewards.clamp(min=0)
        if name == "squeeze" and isinstance(func, ast.Attribute) and _squeezes_last(origin):
            return _column(a, unit, func.value, line, depth - 1) is not None  # critic(obs).squeeze(-1): (N, 1) -> (N,)
        if local_callee(a, origin, unit) is not None and (found := returned_value(a, origin, unit)) is not None:
            # `box_log_area(boxes)`, a helper of the file that returns `torch.log(wh[:, 0] * wh[:, 1])`: every return
            rets = returned(a, local_callee(a, origin, unit))
            return all(_one_dimensional(a, found[2], ret.value, ret.lineno, depth - 1, datasets) for ret in rets)
    if isinstance(origin, (ast.BinOp, ast.Compare)) and origin.lineno < line:
        line = origin.lineno - 1  # `salary = (salary - salary.mean()) / salary.std()`: the names bound above it
    if isinstance(origin, ast.BinOp) and depth > 0:
        return _one_dimensional_arithmetic(a, unit, origin, line, depth - 1) or _td_target(a, unit, origin, line)
    if isinstance(origin, ast.Compare) and len(origin.comparators) == 1 and depth > 0:
        sides = [origin.left, origin.comparators[0]]  # `torch.rand(32) < 0.1`: the shape of the tensor side
        one_d = [_one_dimensional(a, unit, x, line, depth - 1, False) for x in sides]
        return any(one_d) and all(o or _scalar(x, a, unit, line) for o, x in zip(one_d, sides))
    for _ in range(3):  # y[i:i + 32] keeps what y is
        if isinstance(origin, ast.Subscript) and isinstance(origin.slice, ast.Slice):
            inner = _origin(a, unit, origin.value, line)
            if inner is None:  # a slice of a parameter or of an unpacked item: what that is
                return depth > 0 and _one_dimensional(a, unit, origin.value, line, depth - 1, datasets)
            origin = inner
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


_SAME_SHAPE = frozenset({"zeros_like", "ones_like", "randn_like", "rand_like", "full_like", "empty_like", "abs", "exp",
                         "log", "sigmoid", "tanh", "clamp", "clip", "sign", "sqrt", "sin", "cos"})
_SAME_SHAPE_METHODS = frozenset({"clamp", "clip", "abs", "exp", "log", "sigmoid", "tanh", "float", "double", "detach",
                                 "clone", "to", "cpu", "cuda", "neg", "sqrt", "contiguous"})
_MODULES_OF_FUNCTIONS = frozenset({"torch", "F", "np", "numpy", "math"})


def _squeezes_last(call: ast.Call) -> bool:
    dim = call.args[0] if call.args else keyword(call, "dim")
    if isinstance(dim, ast.UnaryOp) and isinstance(dim.op, ast.USub) and isinstance(dim.operand, ast.Constant):
        return dim.operand.value == 1
    return isinstance(dim, ast.Constant) and dim.value == 1


def _column(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int = 6) -> str | None:
    """Why `expr` is an (N, 1) column, or None: the output of a model whose last layer is
    `nn.Linear(k, 1)`; `q.gather(1, idx)` with a column `idx` (the output takes the index's shape);
    `v.unsqueeze(-1)` of a one-dimensional `v`; `model(x).argmax(dim=1, keepdim=True)`."""
    if _one_output_model(a, unit, expr, line):
        return "comes from a model whose last layer is `nn.Linear(..., 1)`"
    origin = _origin(a, unit, expr, line)
    if not isinstance(origin, ast.Call) or not isinstance(origin.func, ast.Attribute) or depth <= 0:
        return None
    name, receiver = origin.func.attr, origin.func.value
    if name == "gather" and dotted(receiver) != "torch":
        dim = origin.args[0] if origin.args else keyword(origin, "dim")
        index = origin.args[1] if len(origin.args) > 1 else keyword(origin, "index")
        if dim is not None and _int_constant(dim) and index is not None and _column(a, unit, index, line, depth - 1):
            return "is gathered with a column of indices"
        if (_constant_one(dim) and _unsqueezed_column(index) and isinstance(receiver, ast.Call)
                and _network_call(a, receiver)):
            # `q(obs).gather(1, actions.unsqueeze(1))`: the index of a network's (N, A) output must be
            # two-dimensional, so what was unsqueezed was (N,) and the gathered values are (N, 1)
            return "is gathered with a column of indices"
    if name == "unsqueeze" and _squeezes_last(origin) and _one_dimensional(a, unit, receiver, line, depth - 1, False):
        return "is a one-dimensional tensor unsqueezed to a column"
    if name in ("argmax", "argmin") and not origin.args and _keeps_dim_one(origin):
        model = _origin(a, unit, receiver, line)
        if isinstance(model, ast.Call) and is_model_call(a, model):
            return "is an index column picked with `keepdim=True`"
    return None


def _constant_one(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 1


def _unsqueezed_column(index: ast.expr | None) -> bool:
    """`actions.unsqueeze(1)`, `a.unsqueeze(-1)`, `a[:, None]`, `a.view(-1, 1)`: an index made a column."""
    if isinstance(index, ast.Call) and isinstance(index.func, ast.Attribute):
        if index.func.attr == "unsqueeze":
            return _squeezes_last(index)
        if index.func.attr in ("view", "reshape") and len(index.args) == 2:
            first, second = index.args
            return _constant_one(second) and isinstance(first, ast.UnaryOp) and _constant_one(first.operand)
    return False


def _network_call(a: FileAnalysis, call: ast.Call) -> bool:
    """A call of a network: `model(x)` as lint knows it, or an attribute every assignment of which is a
    helper of this file that returns a network (`self.q = q_network()`, `def q_network(): return nn.Sequential(...)`)."""
    if is_model_call(a, call):
        return True
    key = dotted(call.func)
    values = [b.value for u in a.units for b in u.bindings.get(key, ())] if key else []
    if not values:
        return False
    for value in values:
        helper = a.functions.get(value.func.id) if isinstance(value, ast.Call) and type(value.func) is ast.Name else None
        rets = returned(a, helper) if helper is not None else []
        if not rets or not all(isinstance(r.value, ast.Call) and a.names.classify_call(r.value) == "module" for r in rets):
            return False
    return True


def _batch_vector(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int) -> bool:
    """`target_net(s).max(1).values`, `.max(dim=1)[0]`, `.amax(1)`, `.sum(1)`, `.mean(1)` of a network's
    output: one value per row, shape (N,) with N the batch."""
    origin = _origin(a, unit, expr, line)
    if isinstance(origin, ast.Attribute) and origin.attr == "values":
        origin = origin.value
    elif isinstance(origin, ast.Subscript) and isinstance(origin.slice, ast.Constant) and origin.slice.value == 0:
        origin = origin.value
    elif not (isinstance(origin, ast.Call) and call_name(origin) in _REDUCTIONS):
        return False
    if not (isinstance(origin, ast.Call) and isinstance(origin.func, ast.Attribute)):
        return False
    if call_name(origin) not in _REDUCTIONS | {"max", "min"}:
        return False
    dim = origin.args[0] if origin.args else keyword(origin, "dim")
    keep = keyword(origin, "keepdim")
    if not _constant_one(dim) or len(origin.args) > 1 or isinstance(keep, ast.Constant) and keep.value is True:
        return False
    network = _origin(a, unit, origin.func.value, line)
    return isinstance(network, ast.Call) and _network_call(a, network)


def _td_target(a: FileAnalysis, unit: Unit, op: ast.BinOp, line: int, depth: int = 4) -> bool:
    """`rewards + gamma * (1 - dones) * target_net(s).max(1).values`: element-wise arithmetic with one term a
    batch vector (`_batch_vector`) is (N,) whatever the other terms are, unless one of them is a column
    (then the target itself is already (N, N))."""
    if depth <= 0 or not isinstance(op.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return False
    found = False
    for side in (op.left, op.right):
        if _column(a, unit, side, line) is not None:
            return False
        inner = _origin(a, unit, side, line) if isinstance(side, ast.Name) else side
        if _batch_vector(a, unit, side, line) or isinstance(inner, ast.BinOp) and _td_target(a, unit, inner, line, depth - 1):
            found = True
    return found


def _keeps_dim_one(call: ast.Call) -> bool:
    dim, keep = keyword(call, "dim"), keyword(call, "keepdim")
    return isinstance(dim, ast.Constant) and dim.value in (1, -1) and isinstance(keep, ast.Constant) and keep.value is True


def _items(a: FileAnalysis, unit: Unit, container: ast.expr, index: int, line: int, depth: int) -> list:
    """The `index`-th item of what `container` holds, as `(value, line, unit)` for each way it is made: a
    tuple literal, the tuple a helper of this file returns, or a parameter that every call site gives one."""
    if depth <= 0:
        return []
    if isinstance(container, (ast.Tuple, ast.List)):
        elts = container.elts
        ok = index < len(elts) and not any(type(e) is ast.Starred for e in elts)
        return [(elts[index], line, unit)] if ok else []
    if isinstance(container, ast.Call):
        found = returned_value(a, container, unit, index)
        return [found] if found is not None else []
    if type(container) is not ast.Name:
        return []
    b = a.binding_before(unit, container.id, line)
    if b is not None:
        if not isinstance(b.stmt, ast.Assign) or b.value is not b.stmt.value or b.line > line:
            return []
        return _items(a, unit, b.value, index, b.line, depth - 1)
    out = []
    for given, at, caller in passed_to(a, unit, container.id):
        found = _items(a, caller, given, index, at, depth - 1)
        if not found:
            return []
        out += found
    return out


def _one_dimensional_elsewhere(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int) -> bool:
    """What a name holds when its function does not show it: an item of a tuple a helper of this file
    returns (`adv, returns = gae(...)`), or a parameter every call site of the function gives a
    one-dimensional value (`value_loss(critic, obs, returns, old_values)`)."""
    return _elsewhere(a, unit, expr, line, depth,
                      lambda u, v, at: _one_dimensional(a, u, v, at, depth, datasets=False))


def _elsewhere(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int, judge) -> bool:
    """`judge(unit, value, line)` of every value a name may hold when its function does not show it: its item
    of a tuple a helper of this file returns, or what every call site passes to it as a parameter."""
    expr = strip_to(expr)
    if type(expr) is not ast.Name:
        return False
    b = a.binding_before(unit, expr.id, line)
    if b is not None:
        index = unpacked_index(b.stmt, expr.id) if isinstance(b.stmt, ast.Assign) else None
        if index is None or index < 0 or b.line > line:
            return False
        items = _items(a, unit, b.value, index, b.line, depth)
        return bool(items) and all(judge(u, v, at) for v, at, u in items)
    passed = passed_to(a, unit, expr.id)
    return bool(passed) and all(judge(u, given, at) for given, at, u in passed)


def _one_dimensional_arithmetic(a: FileAnalysis, unit: Unit, op: ast.BinOp, line: int, depth: int) -> bool:
    """`x @ torch.randn(7)` (a matrix times a vector), `v + 0.1 * torch.randn(n)`: 1-D from 1-D parts."""
    if isinstance(op.op, ast.MatMult):
        return _one_dimensional(a, unit, op.right, line, depth, datasets=False)
    if not isinstance(op.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return False
    sides = [op.left, op.right]
    one_d = [_one_dimensional(a, unit, x, line, depth, datasets=False) for x in sides]
    # (N,) with (N,) or with a plain number: never an (N, 1) or (N, D) part that would broadcast it up
    return any(one_d) and all(o or _scalar(x, a, unit, line) or _numbers(a, unit, x, line) for o, x in zip(one_d, sides))


def _numbers(a: FileAnalysis, unit: Unit, node: ast.expr, line: int) -> bool:
    """`gamma * lam`, `1 - 0.5`: arithmetic of numbers only."""
    if isinstance(node, ast.BinOp):
        return all(_scalar(x, a, unit, line) or _numbers(a, unit, x, line) for x in (node.left, node.right))
    return False


def _scalar(node: ast.expr, a: FileAnalysis | None = None, unit: Unit | None = None, line: int = 0) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    if isinstance(node, ast.Name) and a is not None:
        # `gamma = 0.99`, assigned once in the function or, when it assigns none, at module level
        bound = unit.bindings.get(node.id) or a.units[0].bindings.get(node.id) or []
        return len(bound) == 1 and isinstance(bound[0].stmt, ast.Assign) and _scalar(bound[0].value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _FULL_REDUCTIONS \
            and not node.args and not node.keywords and dotted(node.func.value) not in _MODULES_OF_FUNCTIONS:
        return True  # `salary.mean()`, `y.std()`: a reduction over every element, a 0-d tensor
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float))


_FULL_REDUCTIONS = frozenset({"mean", "std", "var", "sum", "max", "min", "amax", "amin", "norm", "prod", "item"})


def _scalar_dataset_item(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int) -> bool:
    """`for xb, yb in loader` where the loader's Dataset (a class of this file) returns `self.y[idx]` of a
    1-D `self.y` for that item: the DataLoader stacks those scalars into an (N,) batch."""
    expr = strip_to(expr)
    if not isinstance(expr, ast.Name):
        return False
    b = a.binding_before(unit, expr.id, line)
    if b is None or not isinstance(b.stmt, ast.For):
        return False
    index, iterable = _loop_position(b.stmt, expr.id)
    if index is None:
        return False
    loader = _built_by(a, unit, iterable, b.line, 3)
    if not (isinstance(loader, ast.Call) and call_name(loader) == "DataLoader"):
        return False
    dataset_arg = loader.args[0] if loader.args else keyword(loader, "dataset")
    dataset = _built_by(a, unit, dataset_arg, loader.lineno, 3) if dataset_arg is not None else None
    info = a.classes.get(call_name(dataset)) if isinstance(dataset, ast.Call) else None
    getitem = info.methods.get("__getitem__") if info is not None else None
    init = info.methods.get("__init__") if info is not None else None
    init_unit = a.method_unit(init) if init is not None else None
    if getitem is None or init_unit is None:
        return False
    items = [r.value.elts[index] for r in returned(a, getitem)
             if isinstance(r.value, ast.Tuple) and index < len(r.value.elts)]
    return bool(items) and all(_row_of_one_dimensional(a, init_unit, item, depth) for item in items)


def _tensor_dataset_item(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int) -> bool:
    """`for num, cat, price in loader` or `num, cat, price = batch` (a batch of such a loop, also passed to a
    helper as its parameter) where the loader's dataset is `TensorDataset(t0, t1, t2)`: the i-th item of a
    batch has the rows of `ti`, so a one-dimensional `ti` gives an (N,) batch item."""
    expr = strip_to(expr)
    if not isinstance(expr, ast.Name) or depth <= 0:
        return False
    b = a.binding_before(unit, expr.id, line)
    if b is None or b.line > line:
        return False
    if isinstance(b.stmt, ast.For):
        index, iterable = _loop_position(b.stmt, expr.id)
        loaders = [(iterable, unit, b.line)] if index is not None else []
    elif isinstance(b.stmt, ast.Assign) and b.value is b.stmt.value and isinstance(b.value, ast.Name):
        index = unpacked_index(b.stmt, expr.id)
        loaders = _batches_of(a, unit, b.value, b.line, 3) if index is not None and index >= 0 else []
    else:
        return False
    if not loaders:
        return False
    for iterable, where, at in loaders:
        loader = _built_by(a, where, iterable, at, 3)
        if not (isinstance(loader, ast.Call) and call_name(loader) == "DataLoader"):
            return False
        dataset = loader.args[0] if loader.args else keyword(loader, "dataset")
        made = _built_by(a, where, dataset, loader.lineno, 3) if dataset is not None else None
        at_made, made_unit = loader.lineno, where
        if isinstance(made, ast.Call) and call_name(made) != "TensorDataset":
            found = returned_value(a, made, where)  # `make_dataset()` of this file returning the TensorDataset
            made, at_made, made_unit = found if found is not None else (None, 0, None)
        if not (isinstance(made, ast.Call) and call_name(made) == "TensorDataset") or index >= len(made.args):
            return False
        if any(isinstance(x, ast.Starred) for x in made.args[:index + 1]):
            return False
        if not _one_dimensional(a, made_unit, made.args[index], at_made, depth - 1, datasets=False):
            return False
    return True


def _batches_of(a: FileAnalysis, unit: Unit, name: ast.Name, line: int, depth: int) -> list:
    """The loaders a whole-batch name iterates, as `(iterable, unit, line)`: `for batch in loader`, or a
    parameter every call site of its function passes such a name."""
    if depth <= 0:
        return []
    b = a.binding_before(unit, name.id, line)
    if b is not None:
        if isinstance(b.stmt, ast.For) and isinstance(b.stmt.target, ast.Name) and b.stmt.target.id == name.id:
            return [(b.stmt.iter, unit, b.line)]
        return []
    out = []
    for given, at, caller in passed_to(a, unit, name.id):
        found = _batches_of(a, caller, given, at, depth - 1) if isinstance(given, ast.Name) else []
        if not found:
            return []
        out += found
    return out


def _loop_position(stmt: ast.For, name: str) -> tuple[int | None, ast.expr]:
    """`for xb, yb in loader` -> (1, loader) for yb; `for i, (xb, yb) in enumerate(loader)` too."""
    target, iterable = stmt.target, stmt.iter
    if (isinstance(iterable, ast.Call) and call_name(iterable) == "enumerate" and iterable.args
            and isinstance(target, ast.Tuple) and len(target.elts) == 2):
        target, iterable = target.elts[1], iterable.args[0]
    if isinstance(target, ast.Tuple):
        for i, elt in enumerate(target.elts):
            if isinstance(elt, ast.Name) and elt.id == name:
                return i, iterable
    return None, iterable


def _row_of_one_dimensional(a: FileAnalysis, init_unit: Unit, item: ast.expr, depth: int) -> bool:
    """`self.y[idx]` (one index, not a slice) where `__init__` makes `self.y` one-dimensional, also
    wrapped as `torch.tensor(self.y[idx], ...)` or `float(self.y[idx])` (a scalar either way)."""
    if (isinstance(item, ast.Call) and len(item.args) == 1
            and (call_name(item) in ("tensor", "as_tensor") and isinstance(item.func, ast.Attribute)
                 and dotted(item.func.value) == "torch" or call_name(item) == "float")):
        item = item.args[0]
    if not (isinstance(item, ast.Subscript) and not isinstance(item.slice, (ast.Slice, ast.Tuple))):
        return False
    key = dotted(item.value)
    bindings = init_unit.bindings.get(key) if key and key.startswith("self.") else None
    if not bindings:
        return False
    value = bindings[-1].value
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "tolist"
            and not value.args):
        value = value.func.value  # `(...).tolist()` of a 1-D tensor: a list of numbers, one per row
    return _one_dimensional(a, init_unit, value, bindings[-1].line, depth, datasets=False)


def _built_by(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int) -> ast.expr | None:
    """The expression a name was built from: in its function, else from the call sites that pass it
    (`train(model, loader, ...)`), else at module level."""
    expr = strip_to(expr)
    if not isinstance(expr, ast.Name) or depth <= 0:
        return expr
    b = a.binding_before(unit, expr.id, line)
    if b is not None:
        if not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) or (
                b.value is getattr(b.stmt, "value", None)
                and any(isinstance(t, (ast.Tuple, ast.List)) for t in getattr(b.stmt, "targets", ()))):
            return None
        return _built_by(a, unit, b.value, b.line, depth - 1)
    function = unit.node if isinstance(unit.node, ast.FunctionDef) else None
    params = [p.arg for p in function.args.args] if function is not None else []
    if function is not None and expr.id in params and unit.cls is None:
        position = params.index(expr.id)
        built = []
        for call, ctx in a.calls:
            if not (isinstance(call.func, ast.Name) and call.func.id == function.name):
                continue
            arg = call.args[position] if position < len(call.args) else keyword(call, expr.id)
            if arg is not None:
                built.append(_built_by(a, ctx.unit, arg, call.lineno, depth - 1))
        # one answer only when every call site agrees on what it passes
        return built[0] if built and all(ast.dump(x) == ast.dump(built[0]) for x in built if x is not None) \
            and all(x is not None for x in built) else None
    if unit is not a.units[0] and expr.id not in params:
        return _built_by(a, a.units[0], expr, 10**9, depth - 1)  # a global the function reads
    return None


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
        if _inserted_one(a, unit, pred, line) and _two_dimensional(a, unit, target, line):
            r.add(
                CODE,
                f"`{r.segment(pred)}` comes from a model whose forward returns `....unsqueeze(1)`, shape (N, 1, D), and "
                f"`{r.segment(target)}` is two-dimensional, shape (N, D): they broadcast to (N, N, D), so every "
                "prediction is compared with every target instead of its own.",
                node,
                hint=f"Give both the same shape: drop the `unsqueeze(1)` (or compare with `{r.segment(target)}.unsqueeze(1)`).",
            )
            continue
        column = _column(a, unit, pred, line)
        if column is not None and _one_dimensional(a, unit, target, line):
            r.add(
                CODE,
                f"`{r.segment(pred)}` {column}, shape (N, 1), and "
                f"`{r.segment(target)}` is one-dimensional, shape (N,): they broadcast to (N, N), so every prediction is "
                "compared with every target instead of its own.",
                node,
                hint=f"Give both the same shape: `{r.segment(pred)}.squeeze(-1)` (or `{r.segment(target)}.unsqueeze(-1)`).",
            )


def _inserted_one(a: FileAnalysis, unit: Unit, pred: ast.expr, line: int) -> bool:
    """The prediction is a model call, unreshaped, and every `return` of the forward that makes it (through a
    head module of this file: `self.head = HorizonHead(...)`) is `self.layer(h).unsqueeze(1)`: (N, 1, D)."""
    origin = _origin(a, unit, pred, line)
    if not (isinstance(origin, ast.Call) and is_model_call(a, origin)):
        return False
    info = instance_class(a, origin.func)
    found = _forward_returns(a, info, 2) if info is not None else []
    return bool(found) and all(_unsqueezed_layer(o) for o in found)


def _forward_returns(a: FileAnalysis, info, depth: int) -> list[ast.expr]:
    """What the `forward` of class `info` returns; a `return self.head(h)` where `__init__` builds
    `self.head` from another module class of this file is followed into that class's forward."""
    forward = info.methods.get("forward") if info.is_module else None
    if forward is None:
        return []
    init = info.methods.get("__init__")
    init_unit = a.method_unit(init) if init is not None else None
    out = []
    for ret in returned(a, forward):
        value = ret.value
        key = dotted(value.func) if isinstance(value, ast.Call) else None
        built = init_unit.bindings.get(key) if init_unit is not None and key and key.startswith("self.") else None
        ctor = strip_to(built[-1].value) if built and len(built) == 1 else None
        inner = a.classes.get(call_name(ctor)) if isinstance(ctor, ast.Call) and type(ctor.func) is ast.Name else None
        if inner is not None and depth > 0:
            found = _forward_returns(a, inner, depth - 1)
            if not found:
                return []
            out += found
        else:
            out.append(value)
    return out


def _unsqueezed_layer(expr: ast.expr) -> bool:
    """`self.proj(h).unsqueeze(1)`: a layer's output given a dimension of size one after the batch."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "unsqueeze"):
        return False
    dim = expr.args[0] if expr.args else keyword(expr, "dim")
    inner = expr.func.value
    layer = dotted(inner.func) if isinstance(inner, ast.Call) else None
    return _constant_one(dim) and bool(layer) and layer.startswith("self.") and layer.count(".") == 1


def _two_dimensional(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int = 6) -> bool:
    """(N, D) targets: `torch.stack([...])` of one-dimensional rows (`series[i:i + H]`), rows of such a tensor
    picked by an index tensor (`y[idx]`), an item of a tuple a helper returns, or a parameter every call
    site gives one."""
    if depth <= 0:
        return False
    origin = _origin(a, unit, expr, line)
    if origin is None:
        return _elsewhere(a, unit, expr, line, depth, lambda u, v, at: _two_dimensional(a, u, v, at, depth - 1))
    if isinstance(origin, ast.Subscript) and isinstance(strip_to(origin.slice), ast.Name):
        return _two_dimensional(a, unit, origin.value, line, depth - 1)  # y[idx]: rows of y
    if isinstance(origin, ast.Subscript) and isinstance(origin.slice, ast.Slice):
        return _two_dimensional(a, unit, origin.value, line, depth - 1)  # y[i:i + 64]
    if (isinstance(origin, ast.Call) and call_name(origin) == "stack" and isinstance(origin.func, ast.Attribute)
            and dotted(origin.func.value) == "torch" and origin.args and not _nonzero_dim(origin)):
        rows = origin.args[0]
        if isinstance(rows, (ast.ListComp, ast.GeneratorExp)):
            return _one_dimensional(a, unit, rows.elt, line, datasets=False)
        if isinstance(rows, (ast.List, ast.Tuple)) and rows.elts:
            return all(_one_dimensional(a, unit, e, line, datasets=False) for e in rows.elts)
    return False


def _nonzero_dim(call: ast.Call) -> bool:
    dim = call.args[1] if len(call.args) > 1 else keyword(call, "dim")
    return dim is not None and not (isinstance(dim, ast.Constant) and dim.value == 0)


def _unit_of(a: FileAnalysis, node: ast.AST) -> Unit | None:
    best = None
    for unit in a.units:
        start = getattr(unit.node, "lineno", 0)
        end = getattr(unit.node, "end_lineno", 10**9)
        if start <= node.lineno <= end and (best is None or start >= getattr(best.node, "lineno", 0)):
            best = unit
    return best
