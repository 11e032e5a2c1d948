"""GD109: an in-place operation on a leaf tensor that requires grad, with gradient recording on."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis, calls_in
from graddoctor.lint.analysis.names import call_name, dotted, keyword
from graddoctor.lint.analysis.returns import grad_on_at_every_call, instance_class
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


def _layer_weight(a: FileAnalysis, node: ast.expr) -> str | None:
    """`self.prototypes.weight` where `self.prototypes = nn.Linear(...)`: a parameter of a layer built here."""
    if type(node) is not ast.Attribute or node.attr not in _WEIGHTS:
        return None
    owner = dotted(node.value)
    built = a.names.call.get(owner) if owner and a.names.of(owner) == "module" else None
    if built is None or call_name(built) in PARAMETER_FREE or call_name(built) in a.classes:
        return None  # a module of this file may define `weight` as anything
    if owner in _frozen(a) or owner in _frozen_owners(a):
        return None
    return dotted(node)


def _layer_weight_edits(a: FileAnalysis):
    """In-place edits of a layer's `weight`/`bias` (directly, or through a name bound to it in the same
    function: `w = self.prototypes.weight; w.div_(...)`), with the key edited and the layer's parameter."""
    if ".weight" not in a.source and ".bias" not in a.source:
        return
    for call, ctx in a.calls:
        func = call.func
        if ctx.grad_off is not None or type(func) is not ast.Attribute:
            continue
        name = func.attr
        if not name.endswith("_") or name.endswith("__") or name in _NOT_INPLACE:
            continue
        target = func.value
        if type(target) is ast.Name:
            bound = ctx.unit.bindings.get(target.id, ())
            if len(bound) != 1 or not isinstance(bound[0].stmt, ast.Assign):
                continue  # rebound, or a loop variable: not surely the parameter at this call
            target = bound[0].value
        weight = _layer_weight(a, target)
        if weight is not None:
            yield call, ctx, dotted(func.value), weight


def check(a: FileAnalysis, r: Reporter) -> None:
    if not any(word in a.source for word in ("requires_grad", "Parameter", "parameters()")):
        return
    for call, ctx, key, weight in _layer_weight_edits(a):
        if grad_on_at_every_call(a, ctx.unit):
            what = f"`{key}.{call.func.attr}(...)`" + (f" (`{key}` is `{weight}`)" if key != weight else "")
            _report(r, call, key, what)
    leaves = _leaves(a)
    if not leaves:
        return
    for call, ctx in a.calls:
        func = call.func
        if ctx.grad_off is not None or not isinstance(func, ast.Attribute):
            continue
        name = func.attr
        if not name.endswith("_") or name.endswith("__") or name in _NOT_INPLACE:
            continue
        key = dotted(func.value)
        if key and key in leaves.get(id(ctx.unit), ()):
            _report(r, call, key, f"`{key}.{name}(...)`")
    for aug, ctx in a.augassigns:
        key = dotted(aug.target)
        if ctx.grad_off is None and key and key in leaves.get(id(ctx.unit), ()):
            _report(r, aug, key, f"`{r.segment(aug)}`")


def _report(r: Reporter, node: ast.AST, key: str, what: str) -> None:
    r.add(
        CODE,
        f"{what} changes `{key}`, a leaf tensor that requires grad, in place while gradient recording is on; "
        "PyTorch raises \"a leaf Variable that requires grad is being used in an in-place operation\".",
        node,
        hint=f"Do the update under `with torch.no_grad():` (e.g. `with torch.no_grad(): {key} -= lr * {key}.grad`), or use an optimizer.",
    )
