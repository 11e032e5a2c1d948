"""What a call to one of this file's own functions gives back: its `return` values, in its own unit.

`loss = episode_loss(log_probs, rewards)` is followed into `episode_loss` to the
expression it returns, and `loss, value = compute(batch)` to the matching item
of a returned tuple, so a loss made in a helper is judged like one made inline.
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.calls import method_names, resolve
from graddoctor.lint.analysis.model import FileAnalysis, Unit
from graddoctor.lint.analysis.names import call_name, dotted, strip_to

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def local_callee(a: FileAnalysis, call: ast.Call, unit: Unit) -> ast.AST | None:
    """The function of this file (or method of the caller's class) that `call` runs.

    Also a method called on an instance of a class of this file (`trainer.step(x)` after
    `trainer = Trainer(...)`, `MiniTrainer().fit(...)`, a parameter every caller passes an
    instance to), inherited from a base class of this file too. One resolver for every
    question asked of a call (calls.resolve): value flow, the loop events, the parameters.
    """
    found = callee(a, call, unit)
    return found[0] if found is not None else None


def callee(a: FileAnalysis, call: ast.Call, unit: Unit):
    """`(function, its class or None, implicit leading parameters)` that `call` runs, or None (cached on `a`)."""
    func = call.func
    kind = type(func)
    if kind is ast.Name:
        if func.id not in a.functions:
            return None
    elif kind is not ast.Attribute or func.attr not in file_methods(a):
        return None  # the common case, a library call: answered without the memo
    memo = a.__dict__.setdefault("_callees", {})
    key = (id(call), id(unit.cls))
    if key not in memo:
        memo[key] = resolve(call, a.functions, a.classes, unit.cls, a.names, methods=file_methods(a))
    return memo[key]


def call_sites(a: FileAnalysis, function: ast.AST) -> list:
    """`(call, ctx)` for every call of the file that runs `function` (resolved as `callee` does; cached)."""
    index = a.__dict__.get("_call_sites_of")
    if index is None:
        index = a._call_sites_of = {}
        for call, ctx in a.calls:
            found = callee(a, call, ctx.unit) if type(call.func) in (ast.Name, ast.Attribute) else None
            if found is not None:
                index.setdefault(id(found[0]), []).append((call, ctx))
    return index.get(id(function), [])


def file_methods(a: FileAnalysis) -> frozenset[str]:
    """The method names of the file's classes (cached on `a`), which lets `resolve` skip library calls."""
    methods = a.__dict__.get("_method_names")
    if methods is None:
        methods = a._method_names = method_names(a.classes)
    return methods


def passed_to(a: FileAnalysis, unit: Unit, name: str) -> list[tuple[ast.expr, int, Unit]]:
    """What every call site of `unit`'s function passes as its parameter `name`, as `(value, line, caller)`;
    `[]` when the function is never called here or one call site does not show it (a `*args`, a default)."""
    function = unit.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    params = [p.arg for p in function.args.posonlyargs + function.args.args]
    if name not in params:
        return []
    out = []
    for call, ctx in call_sites(a, function):
        found = callee(a, call, ctx.unit)
        position = params.index(name) - (found[2] if found is not None else 0)
        given = next((k.value for k in call.keywords if k.arg == name), None)
        if given is None and 0 <= position < len(call.args):
            given = call.args[position]
        if given is None or any(type(x) is ast.Starred for x in call.args):
            return []
        out.append((given, call.lineno, ctx.unit))
    return out


def instance_class(a: FileAnalysis, node: ast.expr):
    """The class of this file that `node` (`model`, `self.trainer`) was built from, if we can tell."""
    key = dotted(node)
    ctor = (a.names.call.get(key) or a.names.constructed.get(key)) if key else None
    if ctor is None and type(node) is ast.Attribute and type(node.value) in (ast.Name, ast.Attribute) \
            and dotted(node.value) != "self":
        ctor = _built_in_init(a, instance_class(a, node.value), node.attr)  # `model.criterion` of `model = Seg()`
    return a.classes.get(call_name(ctor)) if isinstance(ctor, ast.Call) else None


def _built_in_init(a: FileAnalysis, info, attr: str) -> ast.Call | None:
    """What the one assignment `self.<attr> = X(...)` in the `__init__` of class `info` builds."""
    init = info.methods.get("__init__") if info is not None else None
    unit = a.method_unit(init) if init is not None else None
    found = unit.bindings.get(f"self.{attr}") if unit is not None else None
    if not found or len(found) != 1:
        return None
    value = found[0].value
    while type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr in ("to", "cuda", "cpu"):
        value = value.func.value
    return value if type(value) is ast.Call and type(value.func) is ast.Name else None


def module_forward(a: FileAnalysis, call: ast.Call) -> ast.AST | None:
    """The `forward` that `call` runs when it calls an instance of a module class of this file
    (`self.criterion(logits, y)`, `loss_fn(p, t)`, `model.criterion(...)`), else None."""
    if type(call.func) not in (ast.Name, ast.Attribute):
        return None
    info = instance_class(a, call.func)
    if info is None or not info.is_module:
        return None
    key = dotted(call.func)
    if key is not None and any(type(b.value) is ast.Call and call_name(strip_to(b.value)) != info.name
                               for u in a.units for b in u.bindings.get(key, ())):
        return None  # `criterion` is another module elsewhere in the file: which one this call runs is unsure
    return info.methods.get("forward")


def builds_module(a: FileAnalysis, call: ast.Call, unit: Unit, accept=None, depth: int = 2) -> bool:
    """Whether `call` runs a function of this file every return of which builds a new module
    (`make_block(c_in, c_out)` returning `nn.Sequential(...)`, also through another such helper); `accept(ctor)`
    may turn down the module built (a parameter-free layer)."""
    function = local_callee(a, call, unit)
    inner = a.method_unit(function) if function is not None else None
    rets = returned(a, function) if inner is not None else []
    if not rets:
        return False
    for ret in rets:
        value = strip_to(ret.value)
        if type(value) is not ast.Call:
            return False
        if a.names.classify_call(value) == "module":
            if accept is not None and not accept(value):
                return False
        elif depth <= 0 or not builds_module(a, value, inner, accept, depth - 1):
            return False
    return True


def returned(a: FileAnalysis, function: ast.AST) -> list[ast.Return]:
    """The function's own `return X` statements (not those of functions nested in it), cached on `a`."""
    memo = a.__dict__.setdefault("_returns", {})
    found = memo.get(id(function))
    if found is None:
        found = memo[id(function)] = []
        stack = list(function.body)
        while stack:
            node = stack.pop()
            if type(node) is ast.Return:
                if node.value is not None and not (type(node.value) is ast.Constant and node.value.value is None):
                    found.append(node)
            elif isinstance(node, ast.stmt) and not isinstance(node, _NESTED):
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    stack.extend(getattr(node, field, ()))
            elif type(node) in (ast.ExceptHandler, ast.match_case):
                stack.extend(node.body)
        found.sort(key=lambda r: r.lineno)
    return found


def returned_value(a: FileAnalysis, call: ast.Call, unit: Unit, index: int | None = None) -> tuple[ast.expr, int, Unit] | None:
    """The last value the callee returns (its `index`-th item when unpacked), with its line and unit."""
    function = local_callee(a, call, unit)
    return returned_by(a, function, call, unit, index) if function is not None else None


def returned_by(a: FileAnalysis, function: ast.AST, call: ast.Call, unit: Unit, index: int | None = None):
    """What `function`, run by `call`, returns last (its `index`-th item when unpacked)."""
    inner = a.method_unit(function)
    if inner is None:
        return None
    # the chain that steps into the helper may come back out through its parameters (`argument`)
    a.__dict__.setdefault("_call_sites", {})[id(inner)] = (call, unit)
    for ret in reversed(returned(a, function)):
        value = ret.value
        if index is None:
            return value, ret.lineno, inner
        if type(value) is ast.Tuple and index < len(value.elts) and not any(type(e) is ast.Starred for e in value.elts):
            return value.elts[index], ret.lineno, inner
    return None


def unpacked_index(stmt: ast.stmt, name: str) -> int | None:
    """`loss, logits = train_step(...)`: the position of `name` among the unpacked targets.

    None when the statement does not unpack; -1 when it does but not plainly (a starred or nested target).
    """
    for target in getattr(stmt, "targets", ()):
        if isinstance(target, (ast.Tuple, ast.List)):
            for i, elt in enumerate(target.elts):
                if type(elt) is ast.Starred:
                    return -1
                if type(elt) is ast.Name and elt.id == name:
                    return i
            return -1
    return None


def argument(a: FileAnalysis, unit: Unit, name: str) -> tuple[ast.expr, int, Unit] | None:
    """What the call that a chain last stepped into `unit` through passed as parameter `name`."""
    site = a.__dict__.get("_call_sites", {}).get(id(unit))
    function = unit.node
    if site is None or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    call, caller = site
    params = [p.arg for p in function.args.posonlyargs + function.args.args]
    if unit.cls is not None and params and params[0] in ("self", "cls"):
        params = params[1:]
    if name not in params or any(type(arg) is ast.Starred for arg in call.args):
        return None
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value, call.lineno, caller
    position = params.index(name)
    return (call.args[position], call.lineno, caller) if position < len(call.args) else None
