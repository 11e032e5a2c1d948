"""GD109: an in-place operation on a leaf tensor that requires grad, with gradient recording on."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis, calls_in
from graddoctor.lint.analysis.names import call_name, dotted, keyword
from graddoctor.lint.analysis.reach import reached_with_grad
from graddoctor.lint.analysis.returns import instance_class, local_callee, returned_value
from graddoctor.rules.graph.gd105_unregistered_parameter.check import FACTORIES, PARAMETER_FREE
from graddoctor.lint.reporter import Reporter

CODE = "GD109"
# `detach_()` on a leaf only drops requires_grad (how parameters are frozen); it raises on views, not leaves.
_NOT_INPLACE = frozenset({"requires_grad_", "retain_grad", "share_memory_", "register_hook", "zero_grad", "grad_", "detach_"})


def _is_leaf_value(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call):
        return False
    name = call_name(value)
    if name == "Parameter":
        # `nn.Parameter(t, requires_grad=False)`: a buffer in disguise, updated in place on purpose
        flag = keyword(value, "requires_grad") or (value.args[1] if len(value.args) > 1 else None)
        return not (isinstance(flag, ast.Constant) and flag.value is False)
    if name == "requires_grad_" and isinstance(value.func, ast.Attribute):
        return isinstance(value.func.value, ast.Call) and call_name(value.func.value) in FACTORIES
    flag = keyword(value, "requires_grad")
    return name in FACTORIES and isinstance(flag, ast.Constant) and flag.value is True


def _frozen(a: FileAnalysis) -> set[str]:
    """Names switched off anywhere in the file (`w.requires_grad = False`, `w.requires_grad_(False)`).

    Whether the switch runs before the in-place edit is beyond a static read: say nothing about them.
    """
    out: set[str] = set()
    for call, _ in a.calls:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "requires_grad_" and call.args:
            flag = call.args[0]
            if isinstance(flag, ast.Constant) and flag.value is False and dotted(func.value):
                out.add(dotted(func.value))
    for unit in a.units:
        for key, bindings in unit.bindings.items():
            if key.endswith(".requires_grad") and any(
                isinstance(b.value, ast.Constant) and b.value.value is False for b in bindings
            ):
                out.add(key[: -len(".requires_grad")])
    return out


def _leaves(a: FileAnalysis) -> dict[int, set[str]]:
    """Per unit (by id), the names that hold leaf tensors requiring grad."""
    out: dict[int, set[str]] = {}
    class_leaves: dict[str, set[str]] = {}
    for unit in a.units:
        for key, bindings in unit.bindings.items():
            if any(_is_leaf_value(b.value) for b in bindings) and all(
                _is_leaf_value(b.value) or isinstance(b.stmt, (ast.For, ast.AsyncFor)) for b in bindings
            ):
                out.setdefault(id(unit), set()).add(key)
                if key.startswith("self.") and unit.cls is not None:
                    class_leaves.setdefault(unit.cls.name, set()).add(key)
    frozen_owners = _frozen_owners(a)
    for loop, ctx in a.loops:
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            for name in _parameter_targets(loop.iter, loop.target, frozen_owners):
                out.setdefault(id(ctx.unit), set()).add(name)
    for unit in a.units:
        if unit.cls is not None and unit.cls.name in class_leaves:
            out.setdefault(id(unit), set()).update(class_leaves[unit.cls.name])
    for loop, ctx in a.loops:  # `for param in (self.w, self.b):` over leaves: each param is one
        if isinstance(loop, (ast.For, ast.AsyncFor)) and isinstance(loop.iter, (ast.Tuple, ast.List)) and isinstance(loop.target, ast.Name):
            known = out.get(id(ctx.unit), set())
            if loop.iter.elts and all(dotted(e) in known for e in loop.iter.elts):
                out.setdefault(id(ctx.unit), set()).add(loop.target.id)
    _instance_leaves(a, out, class_leaves)
    frozen = _frozen(a) if "requires_grad" in a.source else set()
    if frozen:
        for names in out.values():
            names -= frozen
    return out


def _parameter_targets(iterable: ast.expr, target: ast.expr, frozen: set[str]) -> list[str]:
    """The loop variables that take parameters: `for p in m.parameters()`, `for n, p in m.named_parameters()`,
    and through `zip(...)`, `enumerate(...)` and `list(...)` (`for p, g in zip(fast.parameters(), grads)`);
    not those of a module whose parameters the file freezes (an EMA copy detached once)."""
    if type(iterable) is not ast.Call:
        return []
    name = call_name(iterable)
    if name in ("parameters", "named_parameters") and type(iterable.func) is ast.Attribute \
            and dotted(iterable.func.value) in frozen:
        return []
    if name == "parameters":
        return [target.id] if type(target) is ast.Name else []
    if name == "named_parameters":
        ok = type(target) is ast.Tuple and len(target.elts) == 2 and type(target.elts[1]) is ast.Name
        return [target.elts[1].id] if ok else []
    if type(iterable.func) is not ast.Name or any(type(x) is ast.Starred for x in iterable.args):
        return []
    if name == "list" and len(iterable.args) == 1:
        return _parameter_targets(iterable.args[0], target, frozen)
    if name == "enumerate" and iterable.args and type(target) is ast.Tuple and len(target.elts) == 2:
        return _parameter_targets(iterable.args[0], target.elts[1], frozen)
    if name == "zip" and type(target) is ast.Tuple and len(target.elts) == len(iterable.args):
        return [n for arg, elt in zip(iterable.args, target.elts) for n in _parameter_targets(arg, elt, frozen)]
    return []


def _frozen_owners(a: FileAnalysis) -> set[str]:
    """Modules whose parameters the file takes out of autograd: `ema = deepcopy(model).requires_grad_(False)`,
    `ema.requires_grad_(False)`, or a loop `for p in ema.parameters(): p.detach_()` (or
    `p.requires_grad = False`, `p.requires_grad_(False)`)."""
    out: set[str] = set()
    if "requires_grad" not in a.source and "detach_" not in a.source:
        return out
    for call, ctx in a.calls:
        func = call.func
        if type(func) is ast.Attribute and func.attr == "requires_grad_" and call.args \
                and type(call.args[0]) is ast.Constant and call.args[0].value is False:
            if dotted(func.value):
                out.add(dotted(func.value))
            for key, bindings in ctx.unit.bindings.items():  # `ema = deepcopy(model).requires_grad_(False)`
                if any(any(c is call for c in calls_in(b.value)) for b in bindings):
                    out.add(key)
    for loop, _ in a.loops:
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or type(loop.iter) is not ast.Call \
                or type(loop.iter.func) is not ast.Attribute or loop.iter.func.attr != "parameters":
            continue
        var = dotted(loop.target)
        for node in ast.walk(loop):
            if type(node) is ast.Call and type(node.func) is ast.Attribute and dotted(node.func.value) == var \
                    and node.func.attr in ("detach_", "requires_grad_"):
                out.add(dotted(loop.iter.func.value) or "")
            elif type(node) is ast.Assign and any(dotted(t) == f"{var}.requires_grad" for t in node.targets):
                out.add(dotted(loop.iter.func.value) or "")
    return out


def _instance_leaves(a: FileAnalysis, out: dict[int, set[str]], class_leaves: dict[str, set[str]]) -> None:
    """`model.prototypes` where `model = ProtoNet()` and ProtoNet sets `self.prototypes = nn.Parameter(...)`.

    Added for the units that use the instance, unless the class itself freezes that attribute.
    """
    if not class_leaves:
        return
    frozen = _frozen(a) if "requires_grad" in a.source else set()
    for call, ctx in a.calls:
        func = call.func
        if type(func) is not ast.Attribute or type(func.value) is not ast.Attribute:
            continue
        owner = func.value.value
        plain = type(owner) in (ast.Name, ast.Attribute) and dotted(owner) != "self"
        info = instance_class(a, owner) if plain else None
        attr = f"self.{func.value.attr}"
        if info is not None and attr in class_leaves.get(info.name, ()) and attr not in frozen:
            out.setdefault(id(ctx.unit), set()).add(dotted(func.value))


_WEIGHTS = frozenset({"weight", "bias"})


def _layer_weight(a: FileAnalysis, node: ast.expr, module: str | None, frozen: set[str]) -> str | None:
    """The layer parameter `node` is, as a dotted name (`self.prototypes.weight` where `self.prototypes =
    nn.Linear(...)`, `m.weight` of the module `.apply(fn)` hands `fn`), or "getattr" for the weight of a module
    fetched with `getattr(model, name)`; None for anything else (not a weight or bias; a module of this file,
    which may define `weight` as anything; a parameter-free layer; a frozen one)."""
    if type(node) is not ast.Attribute or node.attr not in _WEIGHTS:
        return None
    owner = node.value
    if type(owner) is ast.Call:
        ok = call_name(owner) == "getattr" and type(owner.func) is ast.Name and len(owner.args) == 2 \
            and dotted(owner.args[0]) not in frozen
        return "getattr" if ok else None
    key = dotted(owner)
    if key is None or dotted(node) in frozen or any(key == f or key.startswith(f + ".") for f in frozen):
        return None  # `self.fc.weight.requires_grad = False`, `self.fc.requires_grad_(False)`
    if key == module:
        return dotted(node)
    built = a.names.call.get(key) if a.names.of(key) == "module" else None
    if built is None or call_name(built) in PARAMETER_FREE or call_name(built) in a.classes:
        return None
    return dotted(node)


def _reached_leaves(a: FileAnalysis, named: dict[tuple[int, str], str]) -> dict[int, set[str]]:
    """Leaves that a function reaches through what it is given, per unit (by id), and (in `named`) the layer
    parameter a name bound to one is (`w` is `self.proj.weight`):

    - the `weight`/`bias` of a layer built in this file, edited directly or through a name bound to it
      (`self.prototypes.weight.div_(...)`, `w = self.proj.weight; w.div_(...)`);

    - the `weight`/`bias` of the module a function passed to `.apply(fn)` receives
      (`self.apply(self._init_weights)`, then `module.weight.normal_(...)`);
    - a name bound to the `weight`/`bias` of a module fetched with `getattr(model, name)`
      or of a module the file builds (`w = getattr(trainer.model, self.module_name).weight`);
    - a parameter given leaves at a call site with gradients on: `model.parameters()`, a leaf,
      or a list of leaves (also one a helper of this file returns: `params = init_params(d)`),
      and the loop variables over it (`for p, v in zip(params, velocities)`).

    Only in functions that some reference of this file reaches with gradients on (a call, or the
    function handed to `.apply`, a callback list...): a helper called only under `no_grad` edits
    its leaves safely.
    """
    if "weight" not in a.source and "bias" not in a.source and "requires_grad" not in a.source \
            and "parameters()" not in a.source:
        return {}
    out: dict[int, set[str]] = {}
    frozen = _frozen_owners(a) | (_frozen(a) if "requires_grad" in a.source else set())
    modules = _apply_targets(a)
    for call, ctx in a.calls:  # parameters given leaves by a call with gradients on
        if ctx.grad_off is not None:
            continue
        callee = local_callee(a, call, ctx.unit)
        unit = a.method_unit(callee) if callee is not None else None
        if unit is None or any(type(x) is ast.Starred for x in call.args):
            continue
        params = [p.arg for p in callee.args.posonlyargs + callee.args.args]
        if unit.cls is not None and params and params[0] in ("self", "cls") and type(call.func) is ast.Attribute:
            params = params[1:]
        pairs = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg in params]
        for param, arg in pairs:
            what = _leaf_argument(a, arg, ctx, frozen)
            if what == "leaf":
                out.setdefault(id(unit), set()).add(param)
            elif what == "leaves":
                _loop_leaves(a, unit, param, out)
    for unit in a.units:
        module = modules.get(id(unit.node))
        if module is not None:
            out.setdefault(id(unit), set()).update(f"{module}.{w}" for w in _WEIGHTS)
        for key, bindings in unit.bindings.items():  # `w = self.proj.weight`, `table = getattr(model, name).weight`
            if len(bindings) == 1 and isinstance(bindings[0].stmt, ast.Assign):
                weight = _layer_weight(a, bindings[0].value, module, frozen)
                if weight is not None:
                    out.setdefault(id(unit), set()).add(key)
                    if weight != "getattr":
                        named[(id(unit), key)] = weight
    if ".weight" in a.source or ".bias" in a.source:
        for call, ctx in a.calls:  # `self.prototypes.weight.div_(...)`: the layer's parameter itself
            func = call.func
            if type(func) is ast.Attribute and _in_place(func.attr) \
                    and _layer_weight(a, func.value, modules.get(id(ctx.unit.node)), frozen):
                out.setdefault(id(ctx.unit), set()).add(dotted(func.value))
    reached = reached_with_grad(a)
    return {key: names for key, names in out.items() if key in reached}


def _apply_targets(a: FileAnalysis) -> dict[int, str]:
    """Functions of this file handed to `.apply(fn)` with gradients on, by id: the name of the module parameter."""
    out: dict[int, str] = {}
    if ".apply(" not in a.source:
        return out
    for call, ctx in a.calls:
        if ctx.grad_off is not None or call_name(call) != "apply" or type(call.func) is not ast.Attribute \
                or len(call.args) != 1 or call.keywords:
            continue
        fn = call.args[0]
        target = None
        if type(fn) is ast.Name:
            target = a.functions.get(fn.id)
        elif type(fn) is ast.Attribute and dotted(fn.value) == "self" and ctx.unit.cls is not None:
            target = ctx.unit.cls.methods.get(fn.attr)
        if target is None:
            continue
        params = [p.arg for p in target.args.posonlyargs + target.args.args]
        if type(fn) is ast.Attribute and params and params[0] == "self":
            params = params[1:]
        if len(params) == 1:
            out[id(target)] = params[0]
    return out


def _leaf_argument(a: FileAnalysis, arg: ast.expr, ctx, frozen: set[str], depth: int = 0) -> str | None:
    """"leaves" when `arg` holds leaves that require grad (`model.parameters()`, a list of leaves), "leaf" for one."""
    if depth > 2:
        return None
    if type(arg) is ast.Call and call_name(arg) == "parameters" and type(arg.func) is ast.Attribute and not arg.args:
        return "leaves" if dotted(arg.func.value) not in frozen else None
    if type(arg) in (ast.List, ast.Tuple):
        return "leaves" if arg.elts and all(_leaf_argument(a, e, ctx, frozen, depth + 1) == "leaf" for e in arg.elts) else None
    if type(arg) is not ast.Name:
        return None
    bindings = ctx.unit.bindings.get(arg.id, ())
    if len(bindings) != 1 or arg.id in frozen:
        return None
    value = bindings[0].value
    if _is_leaf_value(value):
        return "leaf"
    if type(value) in (ast.List, ast.Tuple) or (type(value) is ast.Call and call_name(value) == "parameters"):
        return _leaf_argument(a, value, bindings[0].ctx, frozen, depth + 1)
    if type(value) is ast.Call:  # `params = init_params(d)`: a helper returning a list of its leaves
        found = returned_value(a, value, ctx.unit)
        if found is not None and type(found[0]) in (ast.List, ast.Tuple) and found[0].elts:
            inner = found[2]
            if all(type(e) is ast.Name and len(inner.bindings.get(e.id, ())) == 1
                   and _is_leaf_value(inner.bindings[e.id][0].value) for e in found[0].elts):
                return "leaves"
    return None


def _loop_leaves(a: FileAnalysis, unit, param: str, out: dict[int, set[str]]) -> None:
    """The loop variables of `unit` that take the items of its parameter `param` (a list of leaves)."""
    for loop, ctx in a.loops:
        if ctx.unit is not unit or not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        names = _items_of(loop.iter, loop.target, param)
        if names:
            out.setdefault(id(unit), set()).update(names)


def _items_of(iterable: ast.expr, target: ast.expr, param: str) -> list[str]:
    """`for p in params`, `for p, v in zip(params, vs)`, `for i, p in enumerate(params)`: the names taking items of `param`."""
    if type(iterable) is ast.Name:
        return [target.id] if iterable.id == param and type(target) is ast.Name else []
    if type(iterable) is not ast.Call or type(iterable.func) is not ast.Name:
        return []
    name = iterable.func.id
    if name == "list" and len(iterable.args) == 1:
        return _items_of(iterable.args[0], target, param)
    if name == "enumerate" and iterable.args and type(target) is ast.Tuple and len(target.elts) == 2:
        return _items_of(iterable.args[0], target.elts[1], param)
    if name == "zip" and type(target) is ast.Tuple and len(target.elts) == len(iterable.args) \
            and not any(type(x) is ast.Starred for x in iterable.args):
        return [n for arg, elt in zip(iterable.args, target.elts) for n in _items_of(arg, elt, param)]
    return []


def _in_place(name: str) -> bool:
    """`add_`, `normal_`: a tensor method that changes its receiver (not `__iadd__`, `requires_grad_`...)."""
    return name.endswith("_") and not name.endswith("__") and name not in _NOT_INPLACE


def check(a: FileAnalysis, r: Reporter) -> None:
    if not any(word in a.source for word in ("requires_grad", "Parameter", "parameters()", ".weight", ".bias")):
        return
    named: dict[tuple[int, str], str] = {}
    leaves = _leaves(a)
    for key, names in _reached_leaves(a, named).items():
        leaves.setdefault(key, set()).update(names)
    if not leaves:
        return
    for call, ctx in a.calls:
        func = call.func
        if ctx.grad_off is not None or not isinstance(func, ast.Attribute) or not _in_place(func.attr):
            continue
        key = dotted(func.value)
        if key and key in leaves.get(id(ctx.unit), ()):
            weight = named.get((id(ctx.unit), key))
            what = f"`{key}.{func.attr}(...)`" + (f" (`{key}` is `{weight}`)" if weight and weight != key else "")
            _report(r, call, key, what, func.attr)
    for aug, ctx in a.augassigns:
        key = dotted(aug.target)
        if ctx.grad_off is None and key and key in leaves.get(id(ctx.unit), ()):
            _report(r, aug, key, f"`{r.segment(aug)}`")


# tensor methods that initialise, and the `torch.nn.init` function that does the same under `no_grad`
_INITIALISERS = {"normal_": "normal_", "uniform_": "uniform_", "fill_": "constant_", "zero_": "zeros_"}


def _report(r: Reporter, node: ast.AST, key: str, what: str, op: str = "") -> None:
    if op in _INITIALISERS:
        hint = (f"Initialise through `torch.nn.init` (`nn.init.{_INITIALISERS[op]}({key}, ...)` runs under `no_grad`), "
                "or do it under `with torch.no_grad():`.")
    else:
        hint = f"Do the update under `with torch.no_grad():` (e.g. `with torch.no_grad(): {key} -= lr * {key}.grad`), or use an optimizer."
    r.add(
        CODE,
        f"{what} changes `{key}`, a leaf tensor that requires grad, in place while gradient recording is on; "
        "PyTorch raises \"a leaf Variable that requires grad is being used in an in-place operation\".",
        node,
        hint=hint,
    )
