"""GD203: backward runs in a training loop, yet no optimizer ever steps in the whole file."""

from __future__ import annotations

import ast
import re

from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.returns import call_sites
from graddoctor.lint.reporter import Reporter

CODE = "GD203"
_PLAIN_BASES = frozenset({"nn.Module", "torch.nn.Module", "Module", "object"})
_TRANSPARENT = frozenset({"prepare", "print", "len", "id", "isinstance", "type"})


def _never_runs(a: FileAnalysis, unit) -> bool:
    """A function or method this file defines and never names again (nor its class): no call, no reference, no string.

    Only where nothing else could call it by convention: not a dunder or `forward`, not decorated,
    and (a method) of a class whose bases are `nn.Module`, `object` or this file's own classes (a
    Lightning-like `optimizer_step` of a plain `nn.Module` that the file's own `fit` never calls).
    """
    node = unit.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return False
    name = node.name
    if name.startswith("__") or name == "forward":
        return False
    info = unit.cls
    while info is not None:
        bases = [(dotted(b) or "?") for b in info.node.bases]
        if any(b not in _PLAIN_BASES and b not in a.classes for b in bases):
            return False
        info = next((a.classes[b] for b in bases if b in a.classes and a.classes[b] is not info), None)
    if unit.cls is None and name not in a.functions:
        return False  # a function nested in another: handed on, maybe
    return _named_once(a, name) or (unit.cls is not None and _named_once(a, unit.cls.name))


def _named_once(a: FileAnalysis, name: str) -> bool:
    """Whether `name` occurs once in the file, as a word (its definition): nothing calls, passes or looks it up."""
    return len(re.findall(rf"\b{re.escape(name)}\b", a.source)) == 1


def _runs(a: FileAnalysis, unit, depth: int = 4) -> bool:
    """Whether running the file runs `unit`: the module body, or a function it calls (transitively)."""
    if isinstance(unit.node, ast.Module):
        return True
    if depth <= 0:
        return False
    return any(ctx.unit is not unit and _runs(a, ctx.unit, depth - 1) for _, ctx in call_sites(a, unit.node))


def _optimizer_escapes(a: FileAnalysis, dead: set[int]) -> bool:
    """True if any step could happen where we cannot see it (a call we do not know gets the optimizer).

    Handing the optimizer to a function of this file (`run_epoch(model, optimizer, ...)`) is no
    escape: its body is read like the rest of the file, and whatever it does with the optimizer
    (step it, pass it on) is one of the calls judged here.
    """
    names = a.names
    for call, ctx in a.calls:
        if id(ctx.unit) in dead:
            continue
        if call_name(call) == "step" or call_name(call) == "optimizer_step":
            recv = call.func.value if isinstance(call.func, ast.Attribute) else None
            if recv is None or not names.is_scheduler(recv):
                return True  # any non-scheduler step: env.step() makes us silent too, on purpose
        if call_name(call) in _TRANSPARENT or names.classify_call(call) == "scheduler" or _own_function(a, call, ctx):
            continue
        for arg in list(call.args) + [k.value for k in call.keywords]:
            if isinstance(arg, (ast.Name, ast.Attribute)) and names.is_optimizer(arg):
                return True
    return False


def _own_function(a: FileAnalysis, call: ast.Call, ctx) -> bool:
    """A call of a module-level function of this file, or of a method of the caller's own class."""
    func = call.func
    if type(func) is ast.Name:
        return func.id in a.functions
    cls = ctx.unit.cls
    return type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id == "self" \
        and cls is not None and func.attr in cls.methods


def _has_optimizer(a: FileAnalysis, it) -> bool:
    if "optimizer" in a.names.kind.values():
        return True
    if any(e.target is not None and not e.model_zero for e in it.of("zero_grad")):
        return True  # `optimizer.zero_grad()` in the loop: an optimizer, whatever built it
    node = it.unit.node
    args = getattr(node, "args", None)
    return bool(args) and any(a.names.is_optimizer(ast.Name(p.arg)) for p in args.args + args.kwonlyargs)


def _manual_update(a: FileAnalysis) -> bool:
    """`p -= lr * p.grad` / `p.data.add_(...)` under no_grad: training without an optimizer."""
    for aug, ctx in a.augassigns:
        if any(isinstance(n, ast.Attribute) and n.attr == "grad" for n in ast.walk(aug.value)):
            return True
    return any(
        isinstance(call.func, ast.Attribute) and call.func.attr.endswith("_") and "grad" in (dotted(call.func.value) or "")
        or any("grad" in (dotted(x) or "") for x in call.args if isinstance(x, ast.Attribute))
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("add_", "sub_", "copy_")
        for call, _ in a.calls
    )


def check(a: FileAnalysis, r: Reporter) -> None:
    if "backward" not in a.source:
        return
    its = iterations(a)
    loops = [it for it in its if it.kind == "loop" and it.of("backward")]
    if not loops:
        return
    # A step only in a method nothing calls (a hook the file's own loop forgot) never runs, when the
    # loop with the backward surely does.
    dead = {id(it.unit) for it in its if _never_runs(a, it.unit)}
    if dead and not _runs(a, loops[0].unit):
        dead = set()
    if any(e.kind in ("step", "opaque") for it in its if id(it.unit) not in dead for e in it.events):
        return
    it = loops[0]
    if id(it.unit) in dead or not _has_optimizer(a, it) or _optimizer_escapes(a, dead) or _manual_update(a):
        return
    backward = it.of("backward")[0]
    uncalled = [(e, it2.unit.node.name) for it2 in its if id(it2.unit) in dead and it2.kind == "function"
                for e in it2.of("step")]
    where = "anywhere in this file" if not uncalled else "by anything this file runs"
    r.add(
        CODE,
        f"backward() runs on every iteration of this loop (line {backward.line}) but no optimizer `.step()` is "
        f"called {where}, so the gradients are computed and the parameters never change.",
        backward.node,
        related=[r.related(e.line, f"`{name}` steps here, but nothing in this file calls it") for e, name in uncalled],
        hint="Call `optimizer.step()` after `backward()` (then `optimizer.zero_grad()`)." if not uncalled
        else f"Call `{uncalled[0][1]}` after `backward()` in the loop.",
    )
