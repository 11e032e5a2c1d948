"""Values a file fixes before it runs: constants followed through names, parameters and objects.

`reduction=cfg.reduction` where `cfg = LossConfig()` and the dataclass says
`reduction: str = "none"`; `self.reduction` set in `__init__` from a constructor
argument; `for letter in cfg.layout` over a layout string that a config's field
defaults to. `constant(a, unit, expr, line)` gives the value `expr` has whenever
it runs, or `UNKNOWN`. It is context-free and careful: a parameter has a value
only when every call of the file passes the same one (or leaves the same
default), an attribute only when one assignment in `__init__` (or one class-level
default) gives it and nothing else in the file assigns a name of that attribute,
and an object's field only when every construction of it agrees.

`live_returns(a, function)` uses it to drop the `return` statements that known
conditions rule out (`if self.reduction == "mean": return loss.mean()` when the
reduction is "none"), so that value flow follows only what a call can return.
"""

from __future__ import annotations

import ast
import operator

from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import dotted
from graddoctor.lint.analysis.returns import call_sites, callee, returned

UNKNOWN = object()
_DEPTH = 8
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y,
}
_PLAIN = (str, int, float, bool, type(None), tuple)


def constant(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int = 0):
    """The value `expr` surely has when it runs on `line` of `unit` (a str, number, bool, None or a tuple of
    them), else UNKNOWN."""
    if depth > _DEPTH:
        return UNKNOWN
    kind = type(expr)
    if kind is ast.Constant:
        return expr.value if isinstance(expr.value, _PLAIN) else UNKNOWN
    if kind in (ast.Tuple, ast.List):
        items = tuple(constant(a, unit, e, line, depth + 1) for e in expr.elts)
        return UNKNOWN if any(i is UNKNOWN for i in items) or any(type(e) is ast.Starred for e in expr.elts) else items
    if kind is ast.UnaryOp and type(expr.op) in (ast.Not, ast.USub):
        value = constant(a, unit, expr.operand, line, depth + 1)
        if value is UNKNOWN:
            return UNKNOWN
        if type(expr.op) is ast.Not:
            return not value
        return -value if type(value) in (int, float) else UNKNOWN
    if kind is ast.Compare and len(expr.ops) == 1 and type(expr.ops[0]) in _COMPARE:
        left = constant(a, unit, expr.left, line, depth + 1)
        right = constant(a, unit, expr.comparators[0], line, depth + 1)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        try:
            return bool(_COMPARE[type(expr.ops[0])](left, right))
        except TypeError:
            return UNKNOWN
    if kind is ast.BoolOp:
        values = [constant(a, unit, v, line, depth + 1) for v in expr.values]
        is_and = type(expr.op) is ast.And
        for value in values:  # `x and y` is settled by the first falsy (or, for `or`, truthy) known operand
            if value is UNKNOWN:
                return UNKNOWN
            if bool(value) is not is_and:
                return value
        return values[-1]
    if kind is ast.Name:
        return _name_value(a, unit, expr, line, depth)
    if kind is ast.Attribute:
        return _attribute_value(a, unit, expr, depth)
    if kind is ast.Subscript:
        return _item_value(a, unit, expr, line, depth)
    return UNKNOWN


def _item_value(a: FileAnalysis, unit: Unit, expr: ast.Subscript, line: int, depth: int):
    """`settings["reduction"]` of a dict literal assigned once and never changed (no item assignment, no
    `update`/`pop`/`setdefault`), or an item of a known tuple or string."""
    index = constant(a, unit, expr.slice, line, depth + 1)
    if index is UNKNOWN:
        return UNKNOWN
    container = expr.value
    if type(container) is ast.Name:
        where = unit if container.id in unit.bindings else a.units[0]
        bindings = where.bindings.get(container.id)
        if bindings and len(bindings) == 1 and type(bindings[0].value) is ast.Dict \
                and isinstance(bindings[0].stmt, (ast.Assign, ast.AnnAssign)) and not _changed(a, container.id):
            for k, v in zip(bindings[0].value.keys, bindings[0].value.values):
                if k is None:
                    return UNKNOWN  # `{**defaults, ...}`
                if constant(a, where, k, line, depth + 1) == index:
                    return constant(a, where, v, bindings[0].line, depth + 1)
            return UNKNOWN
    value = constant(a, unit, container, line, depth + 1)
    if isinstance(value, (tuple, str)) and type(index) is int and -len(value) <= index < len(value):
        return value[index]
    return UNKNOWN


def _changed(a: FileAnalysis, name: str) -> bool:
    """Whether the file changes the items of the dict `name` (`name[k] = v`, `name.update(...)`, ...)."""
    if any(container == name for container, _, _, _ in a.item_stores):
        return True
    if any(type(aug.target) is ast.Subscript and dotted(aug.target.value) == name for aug, _ in a.augassigns):
        return True
    return any(type(c.func) is ast.Attribute and dotted(c.func.value) == name
               and c.func.attr in ("update", "pop", "setdefault", "clear", "popitem") for c, _ in a.calls)


def _name_value(a: FileAnalysis, unit: Unit, name: ast.Name, line: int, depth: int):
    bindings = unit.bindings.get(name.id)
    if bindings:
        return _single(a, unit, bindings, depth)
    function = unit.node
    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if name.id in _parameter_names(function):
            return _one(_parameter_values(a, unit, name.id, depth))
        module = a.units[0]
        if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(function)):
            return UNKNOWN
        if name.id in module.bindings:  # a module-level setting read inside a function
            return _single(a, module, module.bindings[name.id], depth)
    return UNKNOWN


def _single(a: FileAnalysis, unit: Unit, bindings: list, depth: int):
    """The value of a name assigned once in `unit` (plainly: not unpacked, not a loop target)."""
    if len(bindings) != 1:
        return UNKNOWN
    b = bindings[0]
    if not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) or b.ctx.loops:
        return UNKNOWN
    if any(isinstance(t, (ast.Tuple, ast.List)) for t in getattr(b.stmt, "targets", ())):
        return UNKNOWN
    return constant(a, unit, b.value, b.line, depth + 1)


def _one(values: list):
    """The one value every source agrees on (equal, and of one type), else UNKNOWN."""
    if not values or any(v is UNKNOWN for v in values):
        return UNKNOWN
    first = values[0]
    if any(type(v) is not type(first) or v != first for v in values[1:]):
        return UNKNOWN
    return first


def _parameter_names(function: ast.AST) -> list[str]:
    args = function.args
    return [p.arg for p in args.posonlyargs + args.args + args.kwonlyargs]


def _parameter_values(a: FileAnalysis, unit: Unit, param: str, depth: int) -> list:
    """What every call of the file passes as `param` of `unit`'s function ([UNKNOWN] when a call hides it
    or none is seen)."""
    out = []
    for given, where, at in parameter_sources(a, unit, param):
        if given is None:
            return [UNKNOWN]
        out.append(constant(a, where, given, at, depth + 1))
    return out or [UNKNOWN]


def parameter_sources(a: FileAnalysis, unit: Unit, param: str) -> list[tuple[ast.expr | None, Unit, int]]:
    """`(expression, its unit, its line)` for what each call of `unit`'s function (each construction, for an
    `__init__`) gives `param`: the argument, or the parameter's default. `(None, ...)` for a call that hides it
    (`*args`, `**kwargs`, no default); `[]` when the file never calls the function."""
    function = unit.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    memo = a.__dict__.setdefault("_gd_param_sources", {})
    key = (id(function), param)
    if key in memo:
        return memo[key]
    memo[key] = []  # in progress: a recursive function gives nothing more
    args = function.args
    positional = [p.arg for p in args.posonlyargs + args.args]
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults.update({p.arg: d for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    out: list[tuple[ast.expr | None, Unit, int]] = []
    for call, ctx, skip in _sites(a, unit):
        given = next((k.value for k in call.keywords if k.arg == param), None)
        if given is None:
            index = positional.index(param) - skip if param in positional else -1
            if any(type(x) is ast.Starred for x in call.args) or any(k.arg is None for k in call.keywords):
                out.append((None, ctx.unit, call.lineno))
                continue
            if 0 <= index < len(call.args):
                given = call.args[index]
        if given is not None:
            out.append((given, ctx.unit, call.lineno))
        elif param in defaults:
            out.append((defaults[param], a.units[0] if unit.cls is None else unit, function.lineno))
        else:
            out.append((None, ctx.unit, call.lineno))
    memo[key] = out
    return out


def _sites(a: FileAnalysis, unit: Unit) -> list:
    """`(call, ctx, implicit leading parameters)` for each call of the file that runs `unit`'s function."""
    function = unit.node
    if unit.cls is not None and function.name == "__init__":
        if _subclassed(a, unit.cls):
            return []  # `super().__init__(...)` of a subclass passes its own arguments
        return [(c, ctx, 1) for c, ctx in a.calls if type(c.func) is ast.Name and c.func.id == unit.cls.name]
    out = []
    for call, ctx in call_sites(a, function):
        found = callee(a, call, ctx.unit)
        out.append((call, ctx, found[2] if found is not None else 0))
    return out


def _subclassed(a: FileAnalysis, info) -> bool:
    return any(info.name in {(dotted(b) or "").rsplit(".", 1)[-1] for b in other.node.bases}
               for other in a.classes.values() if other is not info)


def _attribute_value(a: FileAnalysis, unit: Unit, expr: ast.Attribute, depth: int):
    """`self.reduction` of this class, or `cfg.layout` of an object built from a class of this file."""
    attr = expr.attr
    owner = expr.value
    if type(owner) is ast.Name and owner.id == "self" and unit.cls is not None:
        return _field(a, unit.cls, None, None, attr, depth)
    values = []
    for call, where in objects(a, unit, owner, getattr(owner, "lineno", 0), depth + 1):
        if call is None:
            return UNKNOWN
        values.append(_field(a, a.classes[call.func.id], call, where, attr, depth))
    return _one(values)


def _field(a: FileAnalysis, info, call: ast.Call | None, where: Unit | None, attr: str, depth: int):
    """The value of `attr` on an instance of the file's class `info` (built by `call` in `where`, when known)."""
    if _subclassed(a, info) or _assigned_elsewhere(a, info, attr):
        return UNKNOWN
    assigned = []
    for name, method in info.methods.items():
        inner = a.method_unit(method)
        found = inner.bindings.get(f"self.{attr}") if inner is not None else None
        if found:
            if name != "__init__":
                return UNKNOWN  # changed by a method: its value depends on when it is read
            assigned.append((inner, found))
    if assigned:
        inner, found = assigned[0]
        if len(found) != 1 or found[0].stmt not in inner.node.body:
            return UNKNOWN  # set in a branch or a loop of `__init__`
        return constant(a, inner, found[0].value, found[0].line, depth + 1)
    for method in info.methods.values():  # `setattr(self, k, v)`, `self.__dict__.update(kwargs)`: any attribute
        if any(type(n) is ast.Call and (dotted(n.func) or "").endswith(("setattr", "__dict__.update"))
               for n in ast.walk(method)):
            return UNKNOWN
    fields = _class_fields(info)
    if attr not in fields:
        return UNKNOWN
    default = fields[attr]
    if call is not None and "__init__" not in info.methods and _is_dataclass(info):
        given = next((k.value for k in call.keywords if k.arg == attr), None)
        if any(type(x) is ast.Starred for x in call.args) or any(k.arg is None for k in call.keywords):
            return UNKNOWN
        order = list(fields)
        if given is None and order.index(attr) < len(call.args):
            given = call.args[order.index(attr)]
        if given is not None:
            return constant(a, where, given, call.lineno, depth + 1)
    elif call is None and _is_dataclass(info):
        return UNKNOWN  # which construction: each may set the field
    if default is None:
        return UNKNOWN
    return constant(a, a.units[0], default, default.lineno, depth + 1)


def _is_dataclass(info) -> bool:
    return any((dotted(d.func if type(d) is ast.Call else d) or "").rsplit(".", 1)[-1] == "dataclass"
               for d in info.node.decorator_list)


def _class_fields(info) -> dict[str, ast.expr | None]:
    """Class-level names in the order written, with their default (`reduction: str = "none"`; None: no default)."""
    out: dict[str, ast.expr | None] = {}
    for stmt in info.node.body:
        if type(stmt) is ast.AnnAssign and type(stmt.target) is ast.Name:
            if "ClassVar" in ast.unparse(stmt.annotation):
                continue
            value = stmt.value
            if type(value) is ast.Call and (dotted(value.func) or "").rsplit(".", 1)[-1] == "field":
                value = next((k.value for k in value.keywords if k.arg == "default"), None)
            out[stmt.target.id] = value
        elif type(stmt) is ast.Assign and len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Name:
            out[stmt.targets[0].id] = stmt.value
    return out


def _assigned_elsewhere(a: FileAnalysis, info, attr: str) -> bool:
    """Whether the file assigns `<something>.attr` outside `info`'s own methods (`cfg.reduction = "mean"`,
    `setattr(...)`): then no default or constructor argument settles it."""
    memo = a.__dict__.get("_gd_attr_writes")
    if memo is None:
        memo = {}
        for u in a.units:
            for key, bindings in u.bindings.items():
                if "." in key:
                    memo.setdefault(key.rsplit(".", 1)[1], []).append((u, key))
        for call, ctx in a.calls:
            if type(call.func) is ast.Name and call.func.id == "setattr" and len(call.args) > 1:
                name = call.args[1]
                memo.setdefault(name.value if type(name) is ast.Constant else "*", []).append((ctx.unit, "?"))
            elif type(call.func) is ast.Attribute and call.func.attr == "replace":  # dataclasses.replace(cfg, x=...)
                for k in call.keywords:
                    memo.setdefault(k.arg or "*", []).append((ctx.unit, "?"))
        a._gd_attr_writes = memo  # type: ignore[attr-defined]
    for u, key in memo.get(attr, []) + memo.get("*", []):
        if key == f"self.{attr}" and u.cls is not None and u.cls is not info and not _related(a, u.cls, info):
            continue  # the attribute of another class's instances
        if key == f"self.{attr}" and u.cls is info:
            continue
        return True
    return False


def _related(a: FileAnalysis, one, other) -> bool:
    """Whether one class of the file derives from the other (either way)."""
    def bases(info) -> set[str]:
        seen, todo = set(), [info]
        while todo:
            cur = todo.pop()
            for b in cur.node.bases:
                name = (dotted(b) or "").rsplit(".", 1)[-1]
                if name in a.classes and name not in seen:
                    seen.add(name)
                    todo.append(a.classes[name])
        return seen
    return other.name in bases(one) or one.name in bases(other)


def objects(a: FileAnalysis, unit: Unit, expr: ast.expr, line: int, depth: int = 0) -> list:
    """The constructions of this file's classes that `expr` may be, as `(call, the unit it is in)`; a `(None,
    None)` entry when one source is not such a construction (or cannot be seen)."""
    if depth > _DEPTH:
        return [(None, None)]
    kind = type(expr)
    if kind is ast.Call:
        func = expr.func
        return [(expr, unit)] if type(func) is ast.Name and func.id in a.classes else [(None, None)]
    if kind is ast.Name:
        bindings = unit.bindings.get(expr.id)
        if bindings:
            if len(bindings) != 1 or not isinstance(bindings[0].stmt, (ast.Assign, ast.AnnAssign)) \
                    or any(isinstance(t, (ast.Tuple, ast.List)) for t in getattr(bindings[0].stmt, "targets", ())):
                return [(None, None)]
            return objects(a, unit, bindings[0].value, bindings[0].line, depth + 1)
        function = unit.node
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and expr.id in _parameter_names(function):
            sources = parameter_sources(a, unit, expr.id)
            if not sources:
                return [(None, None)]
            out = []
            for given, where, at in sources:
                out += objects(a, where, given, at, depth + 1) if given is not None else [(None, None)]
            return out
        module = a.units[0]
        if unit is not module and expr.id in module.bindings:
            return objects(a, module, expr, line, depth + 1)
        return [(None, None)]
    if kind is ast.Attribute and type(expr.value) is ast.Name and expr.value.id == "self" and unit.cls is not None:
        init = unit.cls.methods.get("__init__")
        inner = a.method_unit(init) if init is not None else None
        found = inner.bindings.get(dotted(expr)) if inner is not None else None
        if found and len(found) == 1 and found[0].stmt in inner.node.body and isinstance(found[0].stmt, ast.Assign) \
                and not _assigned_elsewhere(a, unit.cls, expr.attr):
            return objects(a, inner, found[0].value, found[0].line, depth + 1)
    return [(None, None)]


def truth(a: FileAnalysis, unit: Unit, test: ast.expr) -> bool | None:
    """Whether a condition is surely true (True), surely false (False), or cannot be told (None)."""
    value = constant(a, unit, test, getattr(test, "lineno", 0))
    if value is UNKNOWN:
        return None
    try:
        return bool(value)
    except (TypeError, ValueError):  # a value whose truth cannot be taken is unknown
        return None


def live_returns(a: FileAnalysis, function: ast.AST) -> list[ast.Return]:
    """The function's `return X` statements that known conditions do not rule out, in order (cached)."""
    memo = a.__dict__.setdefault("_gd_live_returns", {})
    found = memo.get(id(function))
    if found is not None:
        return found
    unit = a.method_unit(function)
    everything = returned(a, function)
    if unit is None or not any(isinstance(n, ast.If) for n in ast.walk(function)):
        memo[id(function)] = everything
        return everything
    out: list[ast.Return] = []
    _live(a, unit, function.body, out)
    keep = {id(r) for r in everything}
    memo[id(function)] = found = [r for r in out if id(r) in keep]
    return found


def _live(a: FileAnalysis, unit: Unit, body: list[ast.stmt], out: list[ast.Return]) -> bool:
    """Collect the reachable returns of `body`; True when `body` surely ends in a return or raise."""
    for stmt in body:
        kind = type(stmt)
        if kind is ast.Return:
            out.append(stmt)
            return True
        if kind is ast.Raise:
            return True
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            continue
        if kind is ast.If:
            known = truth(a, unit, stmt.test)
            if known is True:
                ends = _live(a, unit, stmt.body, out)
            elif known is False:
                ends = _live(a, unit, stmt.orelse, out)
            else:
                ends = _live(a, unit, stmt.body, out) & _live(a, unit, stmt.orelse, out)
            if ends:
                return True
        elif kind in (ast.With, ast.AsyncWith):
            if _live(a, unit, stmt.body, out):
                return True
        elif kind in (ast.For, ast.AsyncFor, ast.While):
            _live(a, unit, stmt.body, out)
            _live(a, unit, stmt.orelse, out)
        elif kind is ast.Try or kind.__name__ == "TryStar":
            _live(a, unit, stmt.body, out)
            for handler in stmt.handlers:
                _live(a, unit, handler.body, out)
            _live(a, unit, stmt.orelse, out)
            if _live(a, unit, stmt.finalbody, out):
                return True
        elif kind is ast.Match:
            for case in stmt.cases:
                _live(a, unit, case.body, out)
    return False
