"""GD211: a model with dropout or batch norm evaluated without `eval()`.

Only what the file shows is judged, and only for models whose layers are visible:
a name bound to `nn.Sequential(...)` holding dropout / batch norm, to a class
of the file whose `__init__` builds them, or to a factory function of the file
that returns one of those (`model = make_model()`), and trained in the file (its
`.parameters()` given to something, an optimizer). Two places count as evaluations:

- a call of the model in a statement after a training loop (a loop that calls
  `backward()` and `step()`) of the same block, itself no training (no `backward()`);
- a call of the model inside an evaluation function (named `evaluate`, `test`,
  `validate`..., or whose body runs under `no_grad`/`inference_mode`), made with the
  model (an argument at a call site of the file, or the global);
- a call of `self.model` in such a method of a plain trainer class (no base class) whose
  `__init__` builds that one model and which never calls `self.model.eval()`.

Silent when `eval()` / `train(False)` is called on the model anywhere before the
evaluation in the same function, in the evaluation function, or before its call
site; when the model's output is given to another model (a GAN's generator); and
for everything not visible (attributes such as `self.model`, models from elsewhere).
"""

from __future__ import annotations

import ast
import re

from graddoctor.finding import Related
from graddoctor.lint.analysis.model import FileAnalysis
from graddoctor.lint.analysis.names import call_name, dotted
from graddoctor.lint.analysis.returns import instance_class, returned
from graddoctor.lint.analysis.values import backward_calls, names_reaching_backward
from graddoctor.lint.reporter import Reporter

CODE = "GD211"
_LAYERS = re.compile(r"\b(?:Dropout\w*|AlphaDropout|BatchNorm\dd|SyncBatchNorm|LazyBatchNorm\dd)\s*\(")
# `predict`/`infer` name evaluations too; `generate`/`sample` do not: sampling with dropout left on is
# sometimes meant (char-rnn, tests/corpus/programs/char_rnn_sampling_dropout.py).
_EVAL_NAMES = re.compile(r"^(?:eval|evaluate|evaluation|test|testing|validate|validation|valid|val|predict|prediction"
                         r"|predictions|infer|inference)(?:_|$)",
                         re.IGNORECASE)
_GRAD_OFF = ("no_grad", "inference_mode")


def _call_name(node: ast.AST) -> str | None:
    return call_name(node) if isinstance(node, ast.Call) else None


def _base(expr: ast.AST) -> ast.AST:
    """`Net().to(device)` -> `Net()`; `fake.detach()` -> `fake`."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
            expr.func.attr in ("to", "cuda", "cpu", "detach", "float", "double", "half", "train"):
        expr = expr.func.value
    return expr


def _sensitive_classes(a: FileAnalysis) -> set[str]:
    out = set()
    for name, info in a.classes.items():
        if info.is_module and _LAYERS.search(ast.get_source_segment(a.source, info.node) or ""):
            out.add(name)
    return out


def _builds_sensitive(a: FileAnalysis, value: ast.AST, classes: set[str], depth: int = 2) -> bool:
    value = _base(value)
    if not isinstance(value, ast.Call):
        return False
    name = _call_name(value)
    if name in classes:
        return True
    if name == "Sequential" and bool(_LAYERS.search(ast.get_source_segment(a.source, value) or "")):
        return True
    # `model = make_model()`: a factory function of this file that returns such a model
    factory = a.functions.get(name) if isinstance(value.func, ast.Name) and depth > 0 else None
    if factory is None:
        return False
    rets = returned(a, factory)
    params = [p.arg for p in factory.args.args]
    if rets and all(isinstance(ret.value, ast.Name) and ret.value.id in params for ret in rets):
        # `model = train(DemandGRU(), X, Y)`, where `train` returns the model it was given
        given = [dict(zip(params, value.args)).get(ret.value.id) for ret in rets]
        return all(g is not None and _builds_sensitive(a, g, classes, depth - 1) for g in given)
    return any(_returns_sensitive(a, factory, ret.value, classes, depth - 1) for ret in rets)


def _returns_sensitive(a: FileAnalysis, factory: ast.AST, value: ast.AST, classes: set[str], depth: int) -> bool:
    """A factory's returned value builds such a model, directly or through a name bound in the factory."""
    if isinstance(value, ast.Name):
        bound = [n.value for n in ast.walk(factory) if isinstance(n, ast.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == value.id]
        return any(_builds_sensitive(a, v, classes, depth) for v in bound)
    return _builds_sensitive(a, value, classes, depth)


def _models(a: FileAnalysis, classes: set[str]) -> dict[str, int]:
    """Names bound to a visibly train-mode-sensitive model, and trained in the file -> the binding line."""
    found: dict[str, int] = {}
    for node in ast.walk(a.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _builds_sensitive(a, node.value, classes):
                found.setdefault(node.targets[0].id, node.lineno)
    trained = set(re.findall(r"\b(\w+)\.parameters\(\)", a.source)) | _trained_by_own_method(a)
    return {name: line for name, line in found.items() if name in trained}


def _trained_by_own_method(a: FileAnalysis) -> set[str]:
    """`optimizer = model.configure_optimizers()`: a method of the model's class that builds an
    optimizer from `self.parameters()` (the LightningModule shape)."""
    out = set()
    for call, _ in a.calls:
        func = call.func
        if type(func) is not ast.Attribute or type(func.value) is not ast.Name:
            continue
        info = instance_class(a, func.value)
        method = info.methods.get(func.attr) if info is not None else None
        if method is not None and any(
                isinstance(c, ast.Call) and a.names.classify_call(c) == "optimizer"
                and "self.parameters()" in (ast.get_source_segment(a.source, c) or "") for c in ast.walk(method)):
            out.add(func.value.id)
    return out


def _runs_forward(a: FileAnalysis, call: ast.Call, models: dict[str, int]) -> str | None:
    """The model `call` runs forward: `model(x)`, or `model.validation_step(b)` whose method calls `self(...)`."""
    func = call.func
    if type(func) is ast.Name:
        return func.id if func.id in models else None
    if type(func) is not ast.Attribute or type(func.value) is not ast.Name or func.value.id not in models:
        return None
    info = instance_class(a, func.value)
    method = info.methods.get(func.attr) if info is not None else None
    if method is None or method.name == "forward" or _has_backward(method):
        return None
    runs = any(isinstance(c, ast.Call) and (dotted(c.func) in ("self", "self.forward")) for c in ast.walk(method))
    return func.value.id if runs else None


def _under_grad_off(a: FileAnalysis, models: dict[str, int], r: Reporter, reported: set) -> None:
    """A forward pass under `no_grad`/`inference_mode` of a model that nothing in the file ever puts in
    eval mode, whose result reaches no backward (a DQN's target or a teacher's output does): an evaluation."""
    models = {n: line for n, line in models.items() if not _eval_before(a, n, 10**9)}
    if not models:
        return
    training_units = {id(ctx.unit) for _, _, ctx in backward_calls(a)}
    for call, ctx in a.calls:
        if ctx.grad_off is None or id(ctx.unit) not in training_units:
            continue  # only beside training: a test that runs a model under no_grad evaluates nothing
        name = _runs_forward(a, call, models)
        if name is None or a.binding_before(ctx.unit, name, call.lineno) is None:
            continue
        if _result_trained(a, call):
            continue
        off = ast.Pass(lineno=ctx.grad_off.line, col_offset=0)
        _report(r, call, f"`{name}`", off, f"under {ctx.grad_off.how} (line {ctx.grad_off.line}), an evaluation,",
                reported, name, "gradient recording is turned off here, and nothing calls eval()")


def _result_trained(a: FileAnalysis, call: ast.Call) -> bool:
    """`call`'s result is assigned to a name whose value flows into some backward() of the file."""
    assigned = a.__dict__.get("_gd211_assigned")
    if assigned is None:
        assigned = a._gd211_assigned = {}  # type: ignore[attr-defined]
        for node in ast.walk(a.tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {dotted(n) for t in targets for n in ast.walk(t) if type(n) in (ast.Name, ast.Attribute)}
                for sub in ast.walk(node.value):
                    if isinstance(sub, ast.Call):
                        assigned[id(sub)] = names
    return bool(assigned.get(id(call), set()) & names_reaching_backward(a))


def _calls_on(node: ast.AST, name: str, methods: tuple[str, ...]) -> list[ast.Call]:
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in methods \
                and isinstance(sub.func.value, ast.Name) and sub.func.value.id == name:
            out.append(sub)
    return out


def _sets_eval(node: ast.AST, name: str) -> list[ast.Call]:
    calls = _calls_on(node, name, ("eval", "train"))
    return [c for c in calls if c.func.attr == "eval" or  # type: ignore[union-attr]
            (c.args and isinstance(c.args[0], ast.Constant) and c.args[0].value is False) or
            any(k.arg == "mode" and isinstance(k.value, ast.Constant) and k.value.value is False for k in c.keywords)]


def _forwards(node: ast.AST, name: str) -> list[ast.Call]:
    return [c for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name]


def _trains(node: ast.AST) -> bool:
    names = {_call_name(c) for c in ast.walk(node) if isinstance(c, ast.Call)}
    return "backward" in names and "step" in names


def _has_backward(node: ast.AST) -> bool:
    return any(_call_name(c) == "backward" for c in ast.walk(node) if isinstance(c, ast.Call))


def _feeds_another_model(a: FileAnalysis, name: str, models: set[str]) -> bool:
    """The model's output goes into another module's call: `D(G(z))`, `fake = G(z); D(fake.detach())`."""
    outputs = {name}
    for node in ast.walk(a.tree):
        if isinstance(node, ast.Assign) and isinstance(_base(node.value), ast.Call) and \
                isinstance(_base(node.value).func, ast.Name) and _base(node.value).func.id == name:
            outputs.update(t.id for t in node.targets if isinstance(t, ast.Name))
    module_names = models | _module_instances(a)
    for node in ast.walk(a.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id != name \
                and node.func.id in module_names:
            for arg in node.args:
                arg = _base(arg)
                if isinstance(arg, ast.Name) and arg.id in outputs and arg.id != name:
                    return True
                if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == name:
                    return True
    return False


def _module_instances(a: FileAnalysis) -> set[str]:
    """Names bound to a module of the file's classes or of `nn` that is not a loss."""
    out = set()
    classes = {name for name, info in a.classes.items() if info.is_module}
    for node in ast.walk(a.tree):
        if isinstance(node, ast.Assign) and isinstance(_base(node.value), ast.Call):
            called = _base(node.value)
            name = call_name(called)
            from_nn = isinstance(called.func, ast.Attribute) and isinstance(called.func.value, ast.Name) \
                and called.func.value.id == "nn"
            if (name in classes or from_nn) and not name.endswith("Loss"):
                out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def _blocks(node: ast.AST):
    """Every statement list of the tree."""
    for sub in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(sub, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def _trains_through_function(a: FileAnalysis, stmt: ast.stmt, name: str) -> bool:
    """`model = train(model, X, Y)` or `fit(model, loader)`: a statement that gives the model to a function of
    the file that trains (calls backward() and step()) and calls what it was given."""
    if not isinstance(stmt, (ast.Assign, ast.Expr)) or not isinstance(stmt.value, ast.Call):
        return False
    call = stmt.value
    function = a.functions.get(call.func.id) if isinstance(call.func, ast.Name) else None
    if function is None or not _trains(function):
        return False
    params = [p.arg for p in function.args.args]
    for param, arg in zip(params, call.args):
        given = arg.id if isinstance(arg, ast.Name) else None
        built = isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
        if (given == name or built) and _forwards(function, param):
            return True
    return False


def _after_training(a: FileAnalysis, models: dict[str, int], r: Reporter, reported: set) -> None:
    for body in _blocks(a.tree):
        for i, stmt in enumerate(body):
            if not (isinstance(stmt, (ast.For, ast.While)) and _trains(stmt)) and \
                    not any(_trains_through_function(a, stmt, name) for name in models):
                continue
            for name in models:
                if isinstance(stmt, (ast.For, ast.While)) and not _forwards(stmt, name):
                    continue  # this loop trains something else
                if not isinstance(stmt, (ast.For, ast.While)) and not _trains_through_function(a, stmt, name):
                    continue
                for later in body[i + 1:]:
                    if _sets_eval(later, name) or _calls_on(later, name, ("train",)):
                        break
                    if _has_backward(later) or isinstance(later, (ast.FunctionDef, ast.ClassDef)):
                        continue
                    calls = _forwards(later, name)
                    if calls:
                        loop = isinstance(stmt, (ast.For, ast.While))
                        trainer = None if loop else f"`{call_name(stmt.value)}()`"
                        _report(r, calls[0], f"`{name}`", stmt, "after the training loop" if loop else
                                f"after {trainer} trained it (line {stmt.lineno})", reported,
                                note=None if loop else f"{trainer} trains the model here")
                        break


def _evaluation_functions(a: FileAnalysis) -> list[ast.FunctionDef]:
    out = []
    for node in ast.walk(a.tree):
        if not isinstance(node, ast.FunctionDef) or _has_backward(node):
            continue
        if _EVAL_NAMES.match(node.name) or _grad_off(node):
            out.append(node)
    return out


def _grad_off(fn: ast.FunctionDef) -> bool:
    if any(_call_name(d) in _GRAD_OFF or (isinstance(d, ast.Attribute) and d.attr in _GRAD_OFF)
           for d in fn.decorator_list):
        return True
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.With) and \
        any(_call_name(item.context_expr) in _GRAD_OFF for item in body[0].items)


def _in_evaluation_functions(a: FileAnalysis, models: dict[str, int], r: Reporter, reported: set) -> None:
    for fn in _evaluation_functions(a):
        params = [p.arg for p in fn.args.args]
        for site in ast.walk(a.tree):
            if not (isinstance(site, ast.Call) and isinstance(site.func, ast.Name) and site.func.id == fn.name):
                continue
            if _result_trained(a, site) and _in_training_step(a, site):
                continue  # `logits = predict_batch(model, batch)` in a training step: no evaluation (GD110's)
            given = {}
            for param, arg in zip(params, site.args):
                if isinstance(arg, ast.Name) and arg.id in models:
                    given[param] = arg.id
            for kw in site.keywords:
                if kw.arg in params and isinstance(kw.value, ast.Name) and kw.value.id in models:
                    given[kw.arg] = kw.value.id
            for name in models:
                if name not in params and _forwards(fn, name):
                    given[name] = name  # the global model
            for inner, outer in given.items():
                calls = _forwards(fn, inner)
                if not calls or _sets_eval(fn, inner) or _eval_set_on_the_way(a, outer, site):
                    continue
                shown = f"`{outer}`" if inner == outer else f"`{outer}` (as `{inner}`)"
                _report(r, calls[0], shown, site,
                        f"in `{fn.name}()`, an evaluation called at line {site.lineno},", reported, outer,
                        uncalled=_uncalled_eval(fn, inner))


def _self_models(a: FileAnalysis, info, classes: set[str]) -> list[str]:
    """`self.model` built in `__init__` as a visibly train-mode-sensitive model, and trained (`.parameters()`)."""
    init = info.methods.get("__init__")
    if init is None:
        return []
    found = []
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == "self" \
                and _builds_sensitive(a, node.value, classes):
            found.append(node.targets[0].attr)
    text = ast.get_source_segment(a.source, info.node) or ""
    return [attr for attr in found if f"self.{attr}.parameters()" in text]


def _self_calls(node: ast.AST, attr: str, methods: tuple[str, ...] | None = None) -> list[ast.Call]:
    """`self.<attr>(...)` (methods None) or `self.<attr>.<method>(...)` calls under `node`."""
    out = []
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call) or not isinstance(sub.func, ast.Attribute):
            continue
        target = sub.func if methods is None else sub.func.value
        if methods is not None and sub.func.attr not in methods:
            continue
        if isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name) \
                and target.value.id == "self":
            out.append(sub)
    return out


def _in_evaluation_methods(a: FileAnalysis, classes: set[str], r: Reporter, reported: set) -> None:
    """A trainer class whose evaluation method calls `self.model(...)` and nothing in the class sets eval mode."""
    for info in a.classes.values():
        if info.is_module or any((dotted(b) or "") != "object" for b in info.node.bases):
            # a network's own methods (its forward is no evaluation), or a framework's class
            # (LightningModule, a Trainer subclass), which switches modes itself around validation
            continue
        attrs = _self_models(a, info, classes)
        if len(attrs) != 1:
            continue  # several networks (a GAN's G and D): which one is evaluated how is not plain
        attr = attrs[0]
        sets_eval = [c for c in _self_calls(info.node, attr, ("eval", "train"))
                     if c.func.attr == "eval" or (c.args and isinstance(c.args[0], ast.Constant)  # type: ignore[union-attr]
                                                  and c.args[0].value is False)]
        if sets_eval:
            continue
        for fn in info.methods.values():
            if fn.name == "__init__" or _has_backward(fn) or not (_EVAL_NAMES.match(fn.name) or _grad_off(fn)):
                continue
            calls = _self_calls(fn, attr)
            if calls:
                _report(r, calls[0], f"`self.{attr}`", fn, f"in `{fn.name}()`, an evaluation,", reported,
                        f"self.{attr}")


def _eval_set_on_the_way(a: FileAnalysis, name: str, site: ast.AST, depth: int = 3) -> bool:
    """`name.eval()` above the call `site`, or, when the call sits in another function, above every
    call of that function (`evaluate()` called from `evaluate_randomly()`, which the script calls
    after `encoder.eval()`)."""
    if _eval_before(a, name, site.lineno):
        return True
    around = [f for f in ast.walk(a.tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
              and f.lineno < site.lineno <= (f.end_lineno or f.lineno)]
    if not around or depth == 0:
        return False
    inner = max(around, key=lambda f: f.lineno)
    callers = [c for c in ast.walk(a.tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
               and c.func.id == inner.name]
    return bool(callers) and all(_eval_set_on_the_way(a, name, c, depth - 1) for c in callers)


def _in_training_step(a: FileAnalysis, node: ast.AST) -> bool:
    """The innermost function around `node`, or at the top level the innermost loop, calls backward()."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.While)
    around = [f for f in ast.walk(a.tree) if isinstance(f, kinds) and f.lineno <= node.lineno <= (f.end_lineno or f.lineno)]
    functions = [f for f in around if not isinstance(f, (ast.For, ast.While))]
    inner = max(functions or around, key=lambda f: f.lineno) if around else None
    return inner is not None and _has_backward(inner)


def _eval_before(a: FileAnalysis, name: str, line: int) -> bool:
    """`name.eval()` (or train(False)) somewhere above `line` in the file: the path may well set it."""
    return any(c.lineno < line for c in _sets_eval(a.tree, name))


def _uncalled_eval(fn: ast.AST, name: str) -> ast.Expr | None:
    """A statement `model.eval` (the method named, never called: it does nothing) in `fn`."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Attribute) and node.value.attr == "eval" \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == name:
            return node
    return None


def _report(r: Reporter, call: ast.Call, shown: str, context: ast.AST, where: str, reported: set,
            name: str | None = None, note: str | None = None, uncalled: ast.Expr | None = None) -> None:
    name = name or shown.strip("`")
    if (call.lineno, name) in reported:
        return
    reported.add((call.lineno, name))
    extra = [Related(r.filename, uncalled.lineno, f"`{r.segment(uncalled.value)}` names the method without "
                     "calling it, so the model stays in training mode")] if uncalled is not None else []
    r.add(
        CODE,
        f"{shown} has dropout or batch-norm layers and is called here {where} without `{name}.eval()`: "
        "it is still in training mode, so dropout stays on and batch norm overwrites its running statistics "
        "with the evaluation data.",
        call,
        related=[Related(r.filename, context.lineno, note or (
            "the training loop" if isinstance(context, (ast.For, ast.While))
            else "the evaluation method" if isinstance(context, ast.FunctionDef)
            else "the evaluation is called here")), *extra],
        hint=f"Call `{name}.eval()` before evaluating (and `{name}.train()` again before training)" + (
            f": `{r.segment(uncalled.value)}` needs its parentheses." if uncalled is not None else "."),
    )


def check(a: FileAnalysis, r: Reporter) -> None:
    if not _LAYERS.search(a.source) or ".parameters()" not in a.source:
        return
    classes = _sensitive_classes(a)
    reported: set = set()
    _in_evaluation_methods(a, classes, r, reported)
    models = _models(a, classes)
    models = {n: line for n, line in models.items() if not _feeds_another_model(a, n, set(models))}
    if not models:
        return
    _after_training(a, {n: line for n, line in models.items() if not _eval_before(a, n, 10**9)}, r, reported)
    _in_evaluation_functions(a, models, r, reported)
    _under_grad_off(a, models, r, reported)
