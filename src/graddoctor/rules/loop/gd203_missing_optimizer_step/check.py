"""GD203: backward runs in a training loop, yet no optimizer ever steps in the whole file."""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.iterations import iterations
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.reporter import Reporter

CODE = "GD203"
_TRANSPARENT = frozenset({"prepare", "print", "len", "id", "isinstance", "type"})


def _optimizer_escapes(a: FileAnalysis) -> bool:
    """True if any step could happen where we cannot see it (a call we do not know gets the optimizer).

    Handing the optimizer to a function of this file (`run_epoch(model, optimizer, ...)`) is no
    escape: its body is read like the rest of the file, and whatever it does with the optimizer
    (step it, pass it on) is one of the calls judged here.
    """
    names = a.names
    for call, ctx in a.calls:
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
    if not loops or any(e.kind in ("step", "opaque") for it in its for e in it.events):
        return
    it = loops[0]
    if not _has_optimizer(a, it) or _optimizer_escapes(a) or _manual_update(a):
        return
    backward = it.of("backward")[0]
    r.add(
        CODE,
        f"backward() runs on every iteration of this loop (line {backward.line}) but no optimizer `.step()` is "
        "called anywhere in this file, so the gradients are computed and the parameters never change.",
        backward.node,
        hint="Call `optimizer.step()` after `backward()` (then `optimizer.zero_grad()`).",
    )
