"""GD501: a softmax/sigmoid output given straight to a loss that applies its own (or softmax into NLLLoss)."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.constants import live_returns
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted, strip_to
from graddoctor.lint.analysis.returns import local_callee, returned, unpacked_index
from graddoctor.lint.analysis.model_outputs import made_by
from graddoctor.lint.reporter import Reporter

CODE = "GD501"
# loss -> (the squashing it must not be given, what the loss wants, the function name shown)
_LOSSES = {
    "cross_entropy": ("softmax", "logits", "cross_entropy"),
    "CrossEntropyLoss": ("softmax", "logits", "CrossEntropyLoss"),
    "nll_loss": ("softmax", "log-probabilities", "nll_loss"),
    "NLLLoss": ("softmax", "log-probabilities", "NLLLoss"),
    "binary_cross_entropy_with_logits": ("sigmoid", "logits", "binary_cross_entropy_with_logits"),
    "BCEWithLogitsLoss": ("sigmoid", "logits", "BCEWithLogitsLoss"),
}
_MODULES = {"Softmax": "softmax", "Sigmoid": "sigmoid"}
_HINTS = {
    "cross_entropy": "Give the loss the logits: drop the softmax (the loss applies its own); apply softmax only to get probabilities for prediction.",
    "nll_loss": "Use `log_softmax` instead of `softmax` before NLLLoss (or give the logits to `cross_entropy`).",
    "binary_cross_entropy_with_logits": "Give the loss the logits: drop the sigmoid, or keep it and use `BCELoss` / `binary_cross_entropy`.",
}


def _loss_kind(a: FileAnalysis, call: ast.Call) -> tuple[str, str, str] | None:
    name = call_name(call)
    if name in _LOSSES and name[0].islower():
        return _LOSSES[name]
    if isinstance(call.func, ast.Call):  # nn.CrossEntropyLoss()(x, y)
        built = call_name(call.func)
        return _LOSSES.get(built) if built[0:1].isupper() else None
    key = dotted(call.func)
    if key and a.names.of(key) == "loss":
        return _LOSSES.get(a.names.cls.get(key, ""))
    return None


def _squashing(expr: ast.expr) -> str | None:
    """'softmax' / 'sigmoid' when `expr` applies one: `torch.softmax(...)`, `x.sigmoid()`, `nn.Softmax(dim=1)`."""
    if not isinstance(expr, ast.Call):
        return None
    name = call_name(expr)
    if name in ("softmax", "sigmoid"):
        return name
    if name in _MODULES and (dotted(expr.func) or "").startswith(("nn.", "torch.nn.", "Softmax", "Sigmoid")):
        return _MODULES[name]
    return None


_KEEP_VALUES = frozenset({"to", "float", "double", "half", "cuda", "cpu", "contiguous", "clone",
                          "view", "reshape", "flatten", "permute", "transpose", "squeeze", "unsqueeze", "view_as",
                          "reshape_as"})
_PRODUCER_DEPTH = 10


def _producers(a: FileAnalysis, unit, expr: ast.expr, line: int, index: int | None = None, depth: int = 0) -> list:
    """The last ops that made `expr`'s values, as (expression, line, unit), followed by meaning:
    names to their assignments, tuple items to what returned them, a model call to every `return`
    of its class's `forward` (or a Sequential's last layer, also one a helper of this file builds
    and returns, or one kept as an attribute), this file's functions and methods (`model.predict_proba(x)`,
    `self(x)`) to their returns; reshapes and moves keep the values. [] when any step is unseen.
    `index`: the item wanted of a tuple the expression gives (`scores, hidden = decoder(...)`)."""
    if depth > _PRODUCER_DEPTH:
        return []
    while type(expr) is ast.Call and type(expr.func) is ast.Attribute and expr.func.attr in _KEEP_VALUES:
        expr = expr.func.value
    kind = type(expr)
    if kind is ast.Tuple and index is not None:
        if index >= len(expr.elts) or any(type(e) is ast.Starred for e in expr.elts):
            return []
        return _producers(a, unit, expr.elts[index], line, None, depth + 1)
    if index is not None and kind not in (ast.Name, ast.Attribute, ast.Call):
        return []
    if kind is ast.Subscript and type(expr.slice) is ast.Constant and type(expr.slice.value) is int and index is None:
        return _producers(a, unit, expr.value, line, expr.slice.value, depth + 1)
    if kind in (ast.Name, ast.Attribute):
        key = dotted(expr)
        b = a.binding_before(unit, key, line) if key else None
        if b is None or not isinstance(b.stmt, (ast.Assign, ast.AnnAssign)) or b.line > line:
            return []
        position = unpacked_index(b.stmt, key) if kind is ast.Name else None
        if position == -1 or (position is not None and index is not None):
            return []
        if position is not None:
            return _producers(a, unit, b.stmt.value, b.line, position, depth + 1)
        return _producers(a, unit, b.value, b.line, index, depth + 1)
    if kind is not ast.Call:
        return [(expr, line, unit)] if index is None else []
    if _squashing(expr) is not None:
        return [(expr, line, unit)] if index is None else []
    function = _function_called(a, expr, unit)
    if function is not None:
        return _returns_of(a, function, index, depth)
    module = _module_called(a, expr, unit)
    if module is not None:
        return _module_producers(a, module[0], module[1], index, depth + 1)
    return [(expr, line, unit)] if index is None else []


def _function_called(a: FileAnalysis, call: ast.Call, unit):
    """The function of this file `call` runs: a helper, a method (`model.predict_proba(x)`), or the
    class's own forward for `self(x)`."""
    func = call.func
    if type(func) is ast.Name and func.id == "self" and unit.cls is not None:
        return unit.cls.methods.get("forward")
    callee = local_callee(a, call, unit)
    if callee is not None:
        return callee
    if type(func) is ast.Attribute and unit.cls is None and type(func.value) in (ast.Name, ast.Attribute):
        info = a.classes.get(a.names.cls.get(dotted(func.value) or "", ""))
        if info is not None and func.attr != "forward":
            return info.methods.get(func.attr)
    return None


def _returns_of(a: FileAnalysis, function, index: int | None, depth: int, follow=None) -> list:
    """What every `return` of `function` gives, followed by `follow` (`_producers` by default); [] if one is unseen."""
    inner = a.method_unit(function)
    values = live_returns(a, function)  # `if self.cfg.return_probs: return softmax(...)` when the config says so
    if inner is None or not values:
        return []
    out = []
    for ret in values:
        if follow is None:
            found = _producers(a, inner, ret.value, ret.lineno, index, depth + 1)
        else:
            found = follow(a, strip_to(ret.value), inner, index, depth + 1)
        if not found:
            return []
        out.extend(found)
    return out


def _module_called(a: FileAnalysis, call: ast.Call, unit):
    """What built the module `call` runs, with the unit it was built in: `nn.Sequential(...)`, `Net()`,
    `build_head(32, 5)`; None when the file does not show it."""
    func = call.func
    if type(func) is ast.Call:
        return func, unit
    key = dotted(func)
    if key is None:
        return None
    if key.startswith("self.") and key.count(".") == 1 and unit.cls is not None:
        init = unit.cls.methods.get("__init__")
        init_unit = a.method_unit(init) if init is not None else None
        bindings = init_unit.bindings.get(key) if init_unit is not None else None
        if bindings and len(bindings) == 1 and type(strip_to(bindings[0].value)) is ast.Call:
            built = strip_to(bindings[0].value)
            if a.names.of(key) == "module" or _builds_module(a, built, init_unit):
                return built, init_unit
    if a.names.of(key) != "module":
        return None
    ctor = a.names.call.get(key)
    if ctor is not None:
        return ctor, unit
    info = a.classes.get(a.names.cls.get(key, ""))
    return (info.node, unit) if info is not None and info.is_module else None


def _builds_module(a: FileAnalysis, built: ast.Call, unit) -> bool:
    """`build_head(32, 5)`: a helper of this file that returns an `nn.Sequential(...)` or a module of this file."""
    function = local_callee(a, built, unit)
    if function is None:
        return False
    values = returned(a, function)
    return bool(values) and all(type(v.value) is ast.Call and (call_name(v.value) == "Sequential"
                                                               or a.names.classify_call(v.value) == "module")
                                for v in values)


def _module_producers(a: FileAnalysis, built: ast.AST, unit, index: int | None, depth: int) -> list:
    """The last ops of a module built by `built`: a Sequential's last layer, a class's forward returns."""
    if depth > _PRODUCER_DEPTH:
        return []
    if type(built) is ast.ClassDef:
        forward = a.classes[built.name].methods.get("forward")
        return _returns_of(a, forward, index, depth) if forward is not None else []
    if type(built) is not ast.Call:
        return []
    name = call_name(built)
    if name == "Sequential":
        if not built.args or type(built.args[-1]) is ast.Starred:
            return []
        last = built.args[-1]
        if _squashing(last) is not None:
            return [(last, last.lineno, unit)] if index is None else []
        return _module_producers(a, last, unit, index, depth + 1) if type(last) is ast.Call else []
    info = a.classes.get(name) if type(built.func) is ast.Name else None
    if info is not None and info.is_module:
        return _module_producers(a, info.node, unit, index, depth + 1)
    function = local_callee(a, built, unit)
    if function is not None:  # `self.head = build_head(32, 5)`
        return _returns_of(a, function, index, depth, follow=_module_producers)
    return [(built, built.lineno, unit)] if index is None else []


def check(a: FileAnalysis, r: Reporter) -> None:
    if "softmax" not in a.source.lower() and "sigmoid" not in a.source.lower():
        return
    for call, ctx in a.calls:
        kind = _loss_kind(a, call) if call.args else None
        if kind is None:
            continue
        wanted, wants, shown = kind
        made = made_by(a, ctx.unit, call.args[0], call.lineno, values_only=True)
        if not made or any(_squashing(m) != wanted for m in made):
            made = [m for m, _, _ in _producers(a, ctx.unit, call.args[0], call.lineno)]
            if not made or any(_squashing(m) != wanted for m in made):
                continue
        at = made[0]
        key = "cross_entropy" if wants == "logits" and wanted == "softmax" else (
            "nll_loss" if wanted == "softmax" else "binary_cross_entropy_with_logits")
        r.add(
            CODE,
            f"`{shown}` (line {call.lineno}) is given the output of this {wanted}, but it expects {wants}"
            + (": it applies its own " + wanted + ", so the values are squashed twice and the gradients nearly vanish."
               if wants == "logits" else ": probabilities are not log-probabilities, and the loss rewards making them large."),
            at,
            related=[r.related(call.lineno, "the loss that gets it")],
            hint=_HINTS[key],
        )
