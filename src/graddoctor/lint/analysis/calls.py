"""Arguments at the call sites of this file's own functions, methods and classes.

`train(model, loader, opt, sched)` makes `train`'s parameter `scheduler` what
`sched` is (a StepLR), and `Trainer(model, opt)` makes `__init__`'s `optimizer`
an optimizer, so `self.optimizer = optimizer` is one too. Names are judged
file-wide (see names.py), so a parameter takes a kind only when every call site
that passes something known agrees on it.
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.names import Names, dotted, strip_to


def _callee(call: ast.Call, functions: dict, classes: dict, cls) -> tuple[ast.AST, int] | None:
    """The definition `call` runs and how many leading parameters it fills implicitly (`self`)."""
    func = call.func
    kind = type(func)
    if kind is ast.Name:
        target = functions.get(func.id)
        if target is not None:
            return target, 0
        info = classes.get(func.id)
        init = info.methods.get("__init__") if info is not None else None
        return (init, 1) if init is not None else None
    if kind is ast.Attribute and cls is not None and type(func.value) is ast.Name and func.value.id == "self":
        method = cls.methods.get(func.attr)
        return (method, 1) if method is not None else None
    return None


def bind_parameters(names: Names, calls: list, functions: dict, classes: dict) -> bool:
    """Give parameters the kind of what every call site passes them; True if anything was learned."""
    if not functions and not classes:
        return False
    seen: dict[str, tuple[str, str | None, ast.Call | None] | None] = {}  # param -> (kind, class, ctor) or None: disagree
    for call, ctx in calls:
        found = _callee(call, functions, classes, ctx.unit.cls)
        if found is None:
            continue
        target, skip = found
        params = [p.arg for p in target.args.posonlyargs + target.args.args][skip:]
        pairs = list(zip(params, call.args))
        pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
        for param, arg in pairs:
            if type(arg) is ast.Starred:
                break
            known = _kind_of(names, arg)
            if known is None:
                continue
            if param in seen and seen[param] != known:
                seen[param] = None
            else:
                seen[param] = known
    learned = False
    for param, known in seen.items():
        if known is None or param in names.kind:
            continue
        names.kind[param], cls, ctor = known
        if cls:
            names.cls[param] = cls
        if ctor is not None:
            names.call[param] = ctor
        learned = True
    return learned


def _kind_of(names: Names, arg: ast.expr) -> tuple[str, str | None, ast.Call | None] | None:
    arg = strip_to(arg)
    if type(arg) is ast.Call:
        kind = names.classify_call(arg)
        if kind is None:
            return None
        func = arg.func
        name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
        return kind, name, arg
    key = dotted(arg)
    if key is None or key not in names.kind:
        return None
    return names.kind[key], names.cls.get(key), names.call.get(key)
