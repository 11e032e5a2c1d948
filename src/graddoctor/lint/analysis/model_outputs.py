"""What a value in the training loop was made by, for the loss-and-data checks (GD501, GD503).

`made_by(a, unit, expr, line)` follows a loss argument back through names and
reshapes that keep values (not ones that change the shape, which would
settle the question differently) to the expressions that produced it: a call
such as `torch.softmax(...)`, or for a model call `model(x)` the last layer or
last op of that model, read from its class in this file (every `return` of
`forward`) or from an `nn.Sequential(...)`'s last entry. With `values_only`
(a question about the values, not their shape: GD501) it also follows reshapes
and a constant-key item of a returned dict or tuple (`out["scores"].view(-1, 5)`
where `forward` returns `{"scores": ...}`). Not a check itself (no CODE): the
check loader skips it.
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import call_name, dotted, strip_to
from graddoctor.lint.analysis.returns import passed_to
from graddoctor.lint.analysis.values import is_model_call

_KEEP_VALUES = frozenset({"to", "float", "double", "half", "cuda", "cpu", "contiguous", "clone"})
_RESHAPES = frozenset({"view", "reshape", "flatten", "permute", "transpose", "squeeze", "unsqueeze", "view_as", "reshape_as"})
_DEPTH = 6


def made_by(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, values_only: bool = False,
            calls: int = 2) -> list[ast.expr]:
    """The expressions that produced `expr`'s values (several when `forward` returns in several places).

    With `values_only`, a parameter of a helper (`compute_loss(outputs, labels)`) is followed to what every call
    site of the helper in this file passes (at most `calls` helpers deep); [] when one call site does not show it."""
    for _ in range(_DEPTH):
        expr = strip_to(expr)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and (
            expr.func.attr in _KEEP_VALUES or values_only and expr.func.attr in _RESHAPES
        ):
            expr = expr.func.value
            continue
        if values_only and type(expr) is ast.Subscript and type(expr.slice) is ast.Constant:
            containers = made_by(a, unit, expr.value, line, values_only, calls)
            items = [_item(c, expr.slice.value) for c in containers]
            return [i for i in items if i is not None] if containers and all(i is not None for i in items) else []
        if isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr):
            b = a.binding_before(unit, dotted(expr), line)
            if b is None and values_only and calls > 0 and type(expr) is ast.Name:
                return _passed_in(a, unit, expr.id, calls)
            if b is None or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) or b.line > line:
                return []
            if b.value is getattr(b.stmt, "value", None) and any(
                isinstance(t, (ast.Tuple, ast.List)) for t in getattr(b.stmt, "targets", ())
            ):
                return []  # `loss, logits = model(x)`: the value is not this name's alone
            expr, line = b.value, b.line
            continue
        if isinstance(expr, ast.Call) and is_model_call(a, expr):
            return model_outputs(a, expr)
        return [expr]
    return []


def _passed_in(a: FileAnalysis, unit: Unit, name: str, calls: int) -> list[ast.expr]:
    """What made the values every call site passes as parameter `name` of `unit`'s function; [] when one is unseen."""
    out: list[ast.expr] = []
    for given, at, caller in passed_to(a, unit, name):
        found = made_by(a, caller, given, at, True, calls - 1)
        if not found:
            return []
        out.extend(found)
    return out


def _item(container: ast.expr, key) -> ast.expr | None:
    """`{"scores": x}["scores"]` is `x`; `(a, b)[1]` is `b`; None when the literal does not show it."""
    if type(container) is ast.Dict:
        return next((v for k, v in zip(container.keys, container.values) if type(k) is ast.Constant and k.value == key), None)
    if type(container) in (ast.Tuple, ast.List) and type(key) is int and -len(container.elts) <= key < len(container.elts):
        found = container.elts[key]
        return None if type(found) is ast.Starred else found
    return None


def model_outputs(a: FileAnalysis, call: ast.Call) -> list[ast.expr]:
    """The last layer or op of the model that `call` runs, when this file shows it."""
    ctor = call.func if isinstance(call.func, ast.Call) else None
    if ctor is None:
        key = dotted(call.func)
        ctor = a.names.call.get(key) if key else None
    if ctor is None:
        return []
    name = call_name(ctor)
    if name == "Sequential":
        last = ctor.args[-1] if ctor.args and not isinstance(ctor.args[-1], ast.Starred) else None
        return [last] if last is not None else []
    info = a.classes.get(name)
    if info is None or not info.is_module or "forward" not in info.methods:
        return []
    returns = [n.value for n in ast.walk(info.methods["forward"]) if isinstance(n, ast.Return) and n.value is not None]
    out: list[ast.expr] = []
    init = info.methods.get("__init__")
    init_unit = a.method_unit(init) if init is not None else None
    for value in returns:
        layer = _self_layer(value, init_unit)
        out.append(layer if layer is not None else value)
    return out


def _self_layer(value: ast.expr, init_unit: Unit | None) -> ast.expr | None:
    """For `return self.head(h)`: what `self.head` was built from (a Sequential's last entry)."""
    if init_unit is None or not isinstance(value, ast.Call):
        return None
    key = dotted(value.func)
    if not key or not key.startswith("self.") or key.count(".") != 1:
        return None
    bindings = init_unit.bindings.get(key)
    if not bindings:
        return None
    built = strip_to(bindings[-1].value)
    if isinstance(built, ast.Call) and call_name(built) == "Sequential" and built.args:
        last = built.args[-1]
        return None if isinstance(last, ast.Starred) else last
    return built if isinstance(built, ast.Call) else None
