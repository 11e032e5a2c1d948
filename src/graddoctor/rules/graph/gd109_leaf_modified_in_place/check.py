"""GD109: an in-place operation on a leaf tensor that requires grad, with gradient recording on."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted, keyword
from graddoctor.lint.analysis.returns import instance_class
from graddoctor.rules.graph.gd105_unregistered_parameter.check import FACTORIES
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
    for loop, ctx in a.loops:
        if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
            continue
        name = call_name(loop.iter)
        target = loop.target
        if name == "parameters" and isinstance(target, ast.Name):
            out.setdefault(id(ctx.unit), set()).add(target.id)
        elif name == "named_parameters" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            if isinstance(target.elts[1], ast.Name):
                out.setdefault(id(ctx.unit), set()).add(target.elts[1].id)
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


def check(a: FileAnalysis, r: Reporter) -> None:
    if not any(word in a.source for word in ("requires_grad", "Parameter", "parameters()")):
        return
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
