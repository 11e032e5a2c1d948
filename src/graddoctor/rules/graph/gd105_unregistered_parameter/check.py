"""GD105: modules or Parameters kept in a plain list/dict, or tensors with requires_grad=True stored on an nn.Module.

A plain list of `nn.Parameter`s that the file hands to an optimizer (ZeRO-style
shards, fp32 master copies) is registered with the optimizer on purpose: silent.
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.model import FileAnalysis, Unit, calls_in
from graddoctor.lint.analysis.names import call_name, dotted, keyword, strip_to
from graddoctor.lint.analysis.returns import builds_module, returned, returned_value
from graddoctor.lint.reporter import Reporter

CODE = "GD105"
FACTORIES = frozenset("randn rand zeros ones empty full tensor eye arange linspace normal randn_like zeros_like ones_like".split())


PARAMETER_FREE = frozenset(
    "ReLU ReLU6 LeakyReLU GELU SiLU Mish ELU SELU CELU Tanh Sigmoid Softmax LogSoftmax Softplus Softsign Hardtanh "
    "Hardswish Hardsigmoid Tanhshrink Identity Dropout Dropout1d Dropout2d Dropout3d AlphaDropout Flatten Unflatten "
    "MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d "
    "AdaptiveMaxPool1d AdaptiveMaxPool2d Upsample PixelShuffle PixelUnshuffle ZeroPad2d ConstantPad2d".split()
)


def _module_ctor(a: FileAnalysis, node: ast.AST, unit: Unit | None = None) -> ast.Call | None:
    """A constructor of a module that has parameters (a list of ReLUs loses nothing), or a call of a helper
    of this file that returns one (`[make_block(a, b) for a, b in pairs]`)."""
    for sub in calls_in(node):
        inner = strip_to(sub)
        if isinstance(inner, ast.Call) and a.names.classify_call(inner) == "module" and call_name(inner) not in PARAMETER_FREE:
            return sub
    for sub in calls_in(node):
        if builds_module(a, sub, unit or a.units[0], accept=lambda c: call_name(c) not in PARAMETER_FREE):
            return sub
    return None


def _requires_grad_tensor(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call):
        return False
    if call_name(value) == "requires_grad_" and isinstance(value.func, ast.Attribute):
        inner = value.func.value
        return isinstance(inner, ast.Call) and call_name(inner) in FACTORIES
    flag = keyword(value, "requires_grad")
    return call_name(value) in FACTORIES and isinstance(flag, ast.Constant) and flag.value is True


def check(a: FileAnalysis, r: Reporter) -> None:
    if "self." not in a.source:
        return
    by_unit = None
    optimized: set[str] | None = None
    for info in a.classes.values():
        if not info.is_module:
            continue
        if by_unit is None:
            by_unit = _calls_by_unit(a)
        last: dict[str, tuple] = {}  # self.X -> its last assignment in the class
        # Per method unit: container name -> a module added to it later (`.append(...)`, `[k] = ...`).
        appended: dict[tuple[int, str], ast.AST] = {}
        registers = False  # `self.add_module(...)` registers what a plain list also holds
        for method in info.methods.values():
            unit = a.method_unit(method)
            if unit is None:
                continue
            for key, bindings in unit.bindings.items():
                if key.startswith("self.") and key.count(".") == 1:
                    for b in bindings:
                        if key not in last or b.line > last[key][0].lineno:
                            last[key] = (b.stmt, b.value, unit)
            for node, ctx in by_unit.get(id(unit), ()):
                name = call_name(node)
                if name in ("add_module", "register_module"):
                    registers = True
                elif name in ("append", "extend", "insert") and isinstance(node.func, ast.Attribute) and node.args:
                    container = dotted(node.func.value)
                    if container and _module_ctor(a, node.args[-1], unit) is not None:
                        appended.setdefault(_where(container, unit), node)
        for container, value, stmt, ctx in a.item_stores:
            if _module_ctor(a, value, ctx.unit) is not None:
                appended.setdefault(_where(container, ctx.unit), stmt)
        if registers:
            continue
        for key, (stmt, value, unit) in sorted(last.items(), key=lambda kv: kv[1][0].lineno):
            attr = key.split(".", 1)[1]
            filled = appended.get(_where(key, unit))
            found = returned_value(a, value, unit) if type(value) is ast.Call else None
            if found is not None:  # `self.experts = build_experts(d, n)`: the list a helper of this file returns
                if not isinstance(found[0], (ast.List, ast.ListComp, ast.Name)):
                    continue
                value, line, unit = found
                if type(value) is ast.Name:
                    local = a.binding_before(unit, value.id, line)
                    if local is None or not isinstance(local.stmt, ast.Assign):
                        continue
                    filled = next((c for c, _ in by_unit.get(id(unit), ()) if call_name(c) in ("append", "extend", "insert")
                                   and dotted(c.func.value) == value.id and c.args and _module_ctor(a, c.args[-1], unit) is not None), None)
                    value = local.value
            elif type(value) is ast.Name:  # `layers = []; layers.append(nn.Conv2d(...)); self.layers = layers`
                local = a.binding_before(unit, value.id, stmt.lineno)
                if local is None or local.stmt is stmt:
                    continue
                filled = appended.get(_where(value.id, unit))
                value = local.value
            if isinstance(value, (ast.List, ast.Tuple, ast.Dict, ast.ListComp, ast.DictComp)):
                ctor = _module_ctor(a, value, unit) or (filled if not _has_elements(value) else None)
                kind = "dict" if isinstance(value, (ast.Dict, ast.DictComp)) else "list"
                if ctor is None and _holds_grad_tensors(value):
                    if optimized is None:
                        optimized = _optimizer_inputs(a)
                    if attr in optimized:
                        continue  # `Adam([*net.parameters(), *net.log_vars.values()])`: trained on purpose
                    r.add(
                        CODE,
                        f"`{key}` holds tensors with requires_grad=True in a plain Python {kind}, so they are not "
                        f"registered on `{info.name}`: `.parameters()`, an optimizer built from it, `.to(device)` and "
                        "`state_dict()` never see them, and they are never updated.",
                        stmt,
                        hint=f"Hold nn.Parameters in a `{'nn.ParameterDict' if kind == 'dict' else 'nn.ParameterList'}`"
                             " (without requires_grad=True).",
                    )
                    continue
                if ctor is None:
                    continue
                if _holds_parameters(ctor):
                    if optimized is None:
                        optimized = _optimizer_inputs(a)
                    if attr in optimized:
                        continue  # handed to an optimizer: registered there on purpose
                    wrapper = "nn.ParameterDict" if kind == "dict" else "nn.ParameterList"
                    what = (
                        f"`{key}` holds nn.Parameters in a plain Python {kind}, so they are not registered on "
                        f"`{info.name}`: `.parameters()`, an optimizer built from it, `.to(device)` and "
                        "`state_dict()` never see them."
                    )
                else:
                    wrapper = "nn.ModuleDict" if kind == "dict" else "nn.ModuleList"
                    what = (
                        f"`{key}` holds modules in a plain Python {kind}, so their parameters are not registered on "
                        f"`{info.name}`: `.parameters()`, the optimizer, `.to(device)` and `state_dict()` never see them."
                    )
                r.add(
                    CODE,
                    what,
                    stmt,
                    hint=f"Wrap the container: `{key} = {wrapper}(...)`.",
                )
            elif _requires_grad_tensor(strip_to(value)):
                if optimized is None:
                    optimized = _optimizer_inputs(a)
                if attr in optimized:
                    continue  # `SGD([model.scale, ...])`: the optimizer trains it on purpose
                r.add(
                    CODE,
                    f"`{key}` is a tensor with requires_grad=True stored on `{info.name}` but not an nn.Parameter, so "
                    "`.parameters()` and the optimizer never see it and it is never updated.",
                    stmt,
                    hint=f"Register it: `self.{attr} = nn.Parameter(torch....)` (without requires_grad=True).",
                )


def _where(container: str, unit) -> tuple[int, str]:
    """`self.X` is the same list in every method; a local name only within its own function."""
    return (0 if container.startswith("self.") else id(unit), container)


def _calls_by_unit(a: FileAnalysis) -> dict[int, list]:
    by_unit: dict[int, list] = {}
    for call, ctx in a.calls:
        by_unit.setdefault(id(ctx.unit), []).append((call, ctx))
    return by_unit


def _holds_grad_tensors(value: ast.expr) -> bool:
    """`{t: torch.zeros(1, requires_grad=True) for t in tasks}`, `[torch.ones(d, requires_grad=True), ...]`: every
    entry of the container is a new tensor that asks for gradients."""
    if isinstance(value, (ast.ListComp, ast.DictComp)):
        entries = [value.value if isinstance(value, ast.DictComp) else value.elt]
    else:
        entries = list(value.values) if isinstance(value, ast.Dict) else list(value.elts)
    return bool(entries) and all(e is not None and _requires_grad_tensor(strip_to(e)) for e in entries)


def _has_elements(value: ast.expr) -> bool:
    return bool(getattr(value, "elts", None) or getattr(value, "keys", None))


def _holds_parameters(ctor: ast.AST) -> bool:
    """The list is made of `nn.Parameter(...)`s (`ctor` is the element, or the `.append(...)` that adds it)."""
    return any(call_name(c) == "Parameter" for c in calls_in(ctor))


def _optimizer_inputs(a: FileAnalysis) -> set[str]:
    """Last components of the names an optimizer is built from, also through this file's helpers' returns.

    `AdamW(sharded.local_shards)`, `SGD(self.shard_params())` where `shard_params`
    returns `self.local_shards`, `Adam([{"params": self.masters}])`.
    """
    out: set[str] = set()
    methods = {name: fn for info in a.classes.values() for name, fn in info.methods.items()}
    for call, _ in a.calls:
        if a.names.classify_call(call) != "optimizer":
            continue
        todo: list[ast.AST] = list(call.args) + [k.value for k in call.keywords]
        seen: set[int] = set()
        while todo:
            node = todo.pop()
            for sub in ast.walk(node):
                if type(sub) is ast.Attribute:
                    out.add(sub.attr)
                    prop = methods.get(sub.attr)  # `AdamW(model.shard_params)`: a property's body
                    if prop is not None and id(prop) not in seen:
                        seen.add(id(prop))
                        todo.extend(r.value for r in returned(a, prop))
                elif type(sub) is ast.Name:
                    out.add(sub.id)
                elif type(sub) is ast.Call:
                    name = call_name(sub)
                    fn = a.functions.get(name) if type(sub.func) is ast.Name else methods.get(name)
                    if fn is not None and id(fn) not in seen:
                        seen.add(id(fn))
                        # what the helper returns or yields, or builds them from (`params = list(self.shards)`)
                        todo.extend(r.value for r in returned(a, fn))
                        if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(fn)):
                            todo.append(fn)  # a generator: what it loops over is what it yields
                        else:
                            todo.extend(n for n in ast.walk(fn) if isinstance(n, ast.Assign))
    return out
