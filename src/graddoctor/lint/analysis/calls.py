"""Which of this file's own definitions a call runs (`resolve`), and the arguments at their call sites.

`resolve` is the one answer every part of lint asks of a call (value flow, loop
events, training units, parameter binding): a plain function, a method of the
caller's class or of an instance of one of the file's classes, inherited methods
included.

`train(model, loader, opt, sched)` makes `train`'s parameter `scheduler` what
`sched` is (a StepLR), and `Trainer(model, opt)` makes `__init__`'s `optimizer`
an optimizer, so `self.optimizer = optimizer` is one too. Names are judged
file-wide (see names.py), so a parameter takes a kind only when every call site
that passes something known agrees on it.
"""

from __future__ import annotations

import ast

from graddoctor.lint.analysis.names import Names, call_name, dotted, strip_to


def method_of(classes: dict, info, name: str) -> ast.AST | None:
    """The method `name` of class `info`, or of the first base class of this file that defines it."""
    seen = set()
    while info is not None and info.name not in seen:
        seen.add(info.name)
        method = info.methods.get(name)
        if method is not None:
            return method
        bases = [dotted(b) or "" for b in info.node.bases]
        info = next((classes[b] for b in bases if b in classes and b not in seen), None)
    return None


def owner_class(func: ast.expr, classes: dict, cls, names: Names | None):
    """The class of this file whose method `func` (`self.m`, `Cls(...).m`, `obj.m`) names, if we can tell.

    `obj` is an instance when the file builds it from one of its classes (`agent = DQNAgent()`,
    `self.trainer = Trainer(...)`) or passes one to the parameter it is (see `bind_parameters`).
    """
    owner = func.value
    kind = type(owner)
    if kind is ast.Name and owner.id == "self":
        return cls
    if kind is ast.Call and type(owner.func) is ast.Name:
        if owner.func.id == "super" and not owner.args and cls is not None:  # `super().train_step(batch)`
            bases = [dotted(b) or "" for b in cls.node.bases]
            return next((classes[b] for b in bases if b in classes), None)
        return classes.get(owner.func.id)  # `MiniTrainer().fit(...)`
    if names is None or kind not in (ast.Name, ast.Attribute):
        return None
    key = dotted(owner)
    ctor = (names.call.get(key) or names.constructed.get(key)) if key else None
    return classes.get(call_name(ctor)) if type(ctor) is ast.Call else None


def method_names(classes: dict) -> frozenset[str]:
    """Every method name the file's classes define: a call `x.m()` of any other name runs none of them."""
    return frozenset(name for info in classes.values() for name in info.methods)


def resolve(call: ast.Call, functions: dict, classes: dict, cls, names: Names | None = None, init: bool = False,
            methods: frozenset[str] | None = None):
    """What `call` runs among this file's own definitions: `(function, its class or None, implicit leading
    parameters)`, or None. A plain function, a method of the caller's class or of an instance of a class
    of this file (inherited from a base class of this file too); with `init`, `Cls(...)` runs `__init__`."""
    func = call.func
    kind = type(func)
    if kind is ast.Name:
        target = functions.get(func.id)
        if target is not None:
            return target, None, 0
        info = classes.get(func.id) if init else None
        method = method_of(classes, info, "__init__") if info is not None else None
        return (method, info, 1) if method is not None else None
    if kind is ast.Attribute:
        if methods is not None and func.attr not in methods:
            return None  # `x.view(...)`, `torch.cat(...)`: no class of this file has such a method
        info = owner_class(func, classes, cls, names)
        method = method_of(classes, info, func.attr) if info is not None else None
        if method is None:
            return None
        static = any((dotted(d) or "") == "staticmethod" for d in method.decorator_list)
        return method, info, 0 if static else 1
    return None


def _callee(call: ast.Call, functions: dict, classes: dict, cls, names: Names, methods) -> tuple[ast.AST, int] | None:
    """The definition `call` runs and how many leading parameters it fills implicitly (`self`)."""
    found = resolve(call, functions, classes, cls, names, init=True, methods=methods)
    return (found[0], found[2]) if found is not None else None


def bind_parameters(names: Names, calls: list, functions: dict, classes: dict) -> bool:
    """Give parameters the kind of what every call site passes them; True if anything was learned."""
    if not functions and not classes:
        return False
    seen: dict[str, tuple[str, str | None, ast.Call | None] | None] = {}  # param -> (kind, class, ctor) or None: disagree
    methods = method_names(classes)
    instances: dict[str, ast.Call | None] = {}  # param -> the construction of the file's class passed, None: disagree
    for call, ctx in calls:
        found = _callee(call, functions, classes, ctx.unit.cls, names, methods)
        if found is None:
            continue
        target, skip = found
        params = [p.arg for p in target.args.posonlyargs + target.args.args][skip:]
        pairs = list(zip(params, call.args))
        pairs += [(k.arg, k.value) for k in call.keywords if k.arg]
        for param, arg in pairs:
            if type(arg) is ast.Starred:
                break
            instance = _instance_of(names, arg, classes)
            if instance is not None:  # `fit(LitClassifier(), loader)`: `module` is one of this file's classes
                agree = instances.get(param, instance)
                instances[param] = instance if agree is not None and call_name(agree) == call_name(instance) else None
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
    for param, ctor in instances.items():
        if ctor is not None and param not in names.constructed and param != "self":
            names.constructed[param] = ctor
            learned = True
    return learned


def _instance_of(names: Names, arg: ast.expr, classes: dict) -> ast.Call | None:
    """The construction of one of this file's classes that `arg` is (`Trainer(...)`) or names (`agent`)."""
    arg = strip_to(arg)
    if type(arg) is ast.Call:
        return arg if type(arg.func) is ast.Name and arg.func.id in classes else None
    key = dotted(arg)
    ctor = names.constructed.get(key) if key else None
    return ctor if ctor is not None and type(ctor.func) is ast.Name and ctor.func.id in classes else None


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


def possible_methods(call: ast.Call, classes: dict, names: Names, built: frozenset[str],
                     foreign: frozenset[str]) -> list[tuple[ast.AST, object]]:
    """The methods of this file that `obj.m(...)` may run when `resolve` cannot tell what `obj` is.

    A callback list (`for cb in self.callbacks: cb.on_step_end(...)`), a parameter nobody passes
    a known instance: `obj` is one of the classes of this file
    that define `m` and are built in it (`built`), or something else that has an `m`. Nothing is
    answered when `obj` is known (a module, an optimizer, an instance of a library's class), is
    `self`, or starts from an imported name (`foreign`), or `m` is a dunder. Several answers mean
    any one of them, or each in turn: the caller decides what it can say.
    """
    func = call.func
    if type(func) is not ast.Attribute:
        return []
    recv, attr = func.value, func.attr
    if attr.startswith("__"):
        return []
    base = recv.value if type(recv) is ast.Subscript else recv
    key = dotted(base)
    if key is None or key.split(".", 1)[0] in foreign or key == "self" or names.of(key) is not None:
        return []
    if key in names.constructed or key in names.call or (type(recv) is not ast.Subscript and names.of(recv)):
        return []  # an instance of a known class: `resolve` answers for the file's own ones
    out, seen = [], set()
    for info in classes.values():
        if info.name not in built:
            continue
        method = method_of(classes, info, attr)
        if method is not None and id(method) not in seen:
            seen.add(id(method))
            out.append((method, info))
    return out
