"""The order of training calls within one iteration of a loop (or one function body).

`unit_events(body, analysis, cls)` lists, in source order, the calls that
matter to the training-loop rules: backward, optimizer step, zero_grad,
gradient clipping, `scaler.unscale_`, scheduler step. Branches are kept in order
and marked `conditional` (an `if (i + 1) % k == 0:` accumulation step is still
part of the iteration); loops nested inside the iteration are flattened and
marked `nested`. Each branch arm is its own path element (`Arm`), so that
`exclusive(a, b)` tells two calls that never run in the same pass (an `if:` and
its `else:`, two `except` handlers, two `case`s) and the order checks judge a
clip or a zero_grad only against calls that can run with it. One pass per
function gives every loop in it: a loop's iteration is its slice of the events
(`Event.within(loop)` sets the two marks).
Calls to functions and methods defined in the same file are followed (five
levels deep), so a `train_step()` helper counts where it is called, its optimizer
names read as the call site names them (`_renaming`). So are the calls whose
target the file shows less directly: callbacks (`for cb in self.callbacks:
cb.after_step(self)`, each listed object's method, or each class of the file that
defines it, in its own arm), hooks called by name (`getattr(cb, event)(self)` in a
`notify(event)` helper), functions, lambdas and partials given as parameters,
`self(...)`, `super().m()`, a class's `__init__`, and what a `with` statement's
context manager runs on entering and leaving.
Calls we cannot see into that receive the optimizer are `opaque`: they may
step or clear gradients, so the checks stay silent about them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from graddoctor.lint.analysis.calls import method_of, possible_methods, resolve
from graddoctor.lint.analysis.model import FileAnalysis, calls_in
from graddoctor.lint.analysis.names import Names, call_name, dotted, item_key
from graddoctor.lint.analysis.returns import call_sites, callee, file_methods

CLIP_FUNCTIONS = frozenset({"clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grad_value"})
# Framework clipping that unscales AMP gradients itself.
SELF_UNSCALING_CLIP = frozenset({"clip_gradients"})
BACKWARD_HELPERS = frozenset({"manual_backward"})
_TRAINING_NAMES = (
    frozenset({"backward", "step", "optimizer_step", "zero_grad", "zero_", "detach_", "unscale_", "set_grad_enabled"})
    | BACKWARD_HELPERS
    | CLIP_FUNCTIONS
    | SELF_UNSCALING_CLIP
)
_MAX_DEPTH = 5


@dataclass(frozen=True)
class Arm:
    """One arm of a branch statement: `if` body (0) or `else` (1), a handler's or a case's index."""

    node: ast.stmt
    index: int


@dataclass(frozen=True, eq=False)
class Each:
    """A loop over the objects a call is dispatched to (`for cb in callbacks: cb.on_step_end()`), as the
    path of what the call runs sees it: each object's method runs once per pass, not repeatedly. It
    stands for the loop itself (`path.index(loop)` finds it), and marks neither nesting nor a branch."""

    loop: ast.stmt

    def __eq__(self, other) -> bool:
        return other is self.loop or (type(other) is Each and other.loop is self.loop)

    def __hash__(self) -> int:
        return id(self.loop)


def exclusive(a: "Event", b: "Event") -> bool:
    """Whether two events sit in different arms of one branch: at most one of them runs in a pass."""
    for x, y in zip(a.path, b.path):
        if x is y or x == y:
            continue
        return type(x) is Arm and type(y) is Arm and x.node is y.node
    return False


@dataclass(frozen=True)
class Event:
    kind: str  # backward | step | zero_grad | clip | unscale | sched | opaque | grad_off | grad_on
    node: ast.AST
    target: str | None  # the optimizer (dotted) for step/zero_grad/unscale; scheduler for sched
    path: tuple  # the loops and branches (if/except/case nodes) around the call, outermost first
    scaled: bool = False  # backward of scaler.scale(loss); clip by a framework that unscales itself
    model_zero: bool = False  # model.zero_grad() / p.grad = None: clears whatever it owns
    conditional: bool = False  # relative to one iteration: inside a branch of it
    nested: bool = False  # relative to one iteration: inside a loop within it

    @property
    def line(self) -> int:
        return self.node.lineno

    def within(self, loop: ast.AST | None) -> "Event":
        """This event as seen from one pass through `loop` (None: through the whole function)."""
        rest = self.path[self.path.index(loop) + 1 :] if loop is not None else self.path
        if not rest:
            return self
        nested = any(type(m) in _LOOPS for m in rest)
        conditional = any(type(m) not in _LOOPS and type(m) is not Each for m in rest)
        return Event(self.kind, self.node, self.target, self.path, self.scaled, self.model_zero, conditional, nested)


_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_NAMED = (ast.Name, ast.Attribute)


class _Builder:
    def __init__(self, analysis: FileAnalysis, cls_name: str | None):
        self.a = analysis
        self.names = analysis.names
        self.cls = analysis.classes.get(cls_name) if cls_name else None
        self.out: list[Event] = []
        self.spans: list[tuple[ast.stmt, int, int]] = []  # loop, first and last+1 event index
        self.active: list[ast.AST] = []
        self.function: ast.AST | None = None  # the function whose body this is, when one
        self.truncated = False  # a helper was left unread at the depth limit
        self.hooks: dict[str, str] = {}  # parameter -> the method name the call site gives it (`_hook_names`)

    def stmts(self, body: list[ast.stmt], path: tuple) -> None:
        for stmt in body:
            self.stmt(stmt, path)

    def stmt(self, stmt: ast.stmt, path: tuple) -> None:
        kind = type(stmt)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            return
        if kind in _LOOPS:
            self.exprs(stmt.test if kind is ast.While else stmt.iter, path)
            first = len(self.out)
            self.stmts(stmt.body, path + (stmt,))
            if not self.active:
                self.spans.append((stmt, first, len(self.out)))
            self.stmts(stmt.orelse, path)
        elif kind in (ast.With, ast.AsyncWith):
            managers = []
            for item in stmt.items:
                self.exprs(item.context_expr, path)
                managers.append(self._manager(item.context_expr))
            for item, (enter, _) in zip(stmt.items, managers):  # `with StepGuard(opt):` runs `__enter__` first
                self._inline(enter, item.context_expr, path)
            self.stmts(stmt.body, path)
            for item, (_, leave) in reversed(list(zip(stmt.items, managers))):  # and `__exit__` after the body
                self._inline(leave, item.context_expr, path)
        elif kind is ast.If:
            self.exprs(stmt.test, path)
            self.stmts(stmt.body, path + (Arm(stmt, 0),))
            self.stmts(stmt.orelse, path + (Arm(stmt, 1),))
        elif kind is ast.Try or kind.__name__ == "TryStar":
            self.stmts(stmt.body, path)
            for i, h in enumerate(stmt.handlers):
                self.stmts(h.body, path + (Arm(stmt, i),))
            self.stmts(stmt.orelse, path)
            self.stmts(stmt.finalbody, path)
        elif kind is ast.Match:
            for i, case in enumerate(stmt.cases):
                self.stmts(case.body, path + (Arm(stmt, i),))
        elif kind is ast.Assign and _clears_grad(stmt):
            self.out.append(Event("zero_grad", stmt, None, path, model_zero=True))
        else:
            self.exprs(stmt, path)

    def exprs(self, root: ast.AST, path: tuple) -> None:
        calls = self.a.calls_of.get(id(root))
        if calls is None:
            calls = calls_in(root)
        if len(calls) > 1:
            calls = sorted(calls, key=lambda c: (c.end_lineno, c.end_col_offset))  # inner calls finish first
        for call in calls:
            self.call(call, path)

    def call(self, call: ast.Call, path: tuple) -> None:
        func = call.func
        name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
        if name not in _TRAINING_NAMES:
            self.follow(call, path)
            return
        found = self._resolve(call)
        # The user's own `self.optimizer_step()`: what it does, not its name. A wrapper's `zero_grad` calling
        # `self.optimizer.zero_grad()` is the library's, not itself again (names are file-wide).
        if found is not None and found[0] not in self.active:
            self.follow(call, path)
            return
        if name == "set_grad_enabled":
            mode = call.args[0] if len(call.args) == 1 else None
            if type(mode) is ast.Constant and type(mode.value) is bool and self._statement(call):
                self.out.append(Event("grad_on" if mode.value else "grad_off", call, None, path))
            return
        names = self.names
        recv = func.value if isinstance(func, ast.Attribute) else None
        emit = self.out.append
        if name == "backward" and recv is not None and dotted(func) != "torch.autograd.backward":
            scaled = isinstance(recv, ast.Call) and call_name(recv) == "scale"
            if dotted(recv) in ("accelerator", "fabric", "self.accelerator", "self.fabric") or names.of(recv) == "accelerator":
                emit(Event("backward", call, None, path))
            elif not _is_module_call(recv):
                emit(Event("backward", call, None, path, scaled=scaled))
        elif name == "backward" or name in BACKWARD_HELPERS:
            emit(Event("backward", call, None, path))
        elif name == "step" and recv is not None:
            if names.is_scaler(recv):
                opt = call.args[0] if call.args else None
                emit(Event("step", call, dotted(opt) if opt is not None else None, path, scaled=True))
            elif names.is_scheduler(recv):
                emit(Event("sched", call, dotted(recv), path))
            elif names.is_optimizer(recv):
                emit(Event("step", call, _key(recv, names), path))
        elif name == "optimizer_step":  # xm.optimizer_step(opt), Lightning's hooks
            emit(Event("step", call, None, path))
        elif name == "zero_grad" and recv is not None:
            if names.is_optimizer(recv):
                emit(Event("zero_grad", call, _key(recv, names), path))
            else:
                emit(Event("zero_grad", call, None, path, model_zero=True))
        elif name in ("zero_", "detach_") and recv is not None and isinstance(recv, ast.Attribute) and recv.attr == "grad":
            emit(Event("zero_grad", call, None, path, model_zero=True))
        elif name in CLIP_FUNCTIONS or name in SELF_UNSCALING_CLIP:
            framework = name in SELF_UNSCALING_CLIP or (recv is not None and not _is_torch_utils(recv))
            emit(Event("clip", call, None, path, scaled=framework))
        elif name == "unscale_" and recv is not None:
            opt = call.args[0] if call.args else None
            emit(Event("unscale", call, dotted(opt) if opt is not None else None, path))
        else:
            self.follow(call, path)

    def follow(self, call: ast.Call, path: tuple) -> None:
        """Inline a same-file helper; mark calls we cannot see into that get the optimizer."""
        found = self._resolve(call)
        if found is not None:
            rename = _renaming(self.a, call, found, self._unit())
            for e in self._helper_events(found[0], found[1], _hook_names(call, found)):
                target = rename(e.target)
                if path or target != e.target:
                    e = Event(e.kind, e.node, target, path + e.path, e.scaled, e.model_zero)
                self.out.append(e)
            return
        if self._dispatch(call, path):
            return
        if not call.args and not call.keywords:
            return
        for arg in call.args + [k.value for k in call.keywords]:
            if type(arg) in _NAMED and self.names.is_optimizer(arg):
                self.out.append(Event("opaque", call, _key(arg, self.names), path))
                return


    def _dispatch(self, call: ast.Call, path: tuple) -> bool:
        """Inline the methods a call on an object of unknown kind may run (calls.possible_methods).

        One class of the file defines the method: its events count here. Several do, and the call
        runs in a loop over the receiver (`for cb in callbacks: cb.after_step(model)`): each class's
        events count, each in its own arm (one callback's `zero_grad` is not known to run).
        Several otherwise: nothing is said.
        """
        func = func0 = call.func
        if type(func) is ast.Name:
            return self._call_value(call, path)
        if type(func) is ast.Call and type(func.func) is ast.Name and func.func.id == "getattr" and len(func.args) == 2:
            name = func.args[1]  # `getattr(cb, "on_step_end")(...)`, or `getattr(cb, hook)` in a `notify(self, hook)`
            name = name.value if type(name) is ast.Constant else self.hooks.get(getattr(name, "id", None))
            if type(name) is not str:
                return False
            call = ast.copy_location(ast.Call(ast.Attribute(func.args[0], name, ast.Load()), call.args, call.keywords), func)
            func = call.func
        elif type(func) is ast.Attribute:
            name = func.attr
        else:
            return False
        if name in _TRAINING_NAMES or name not in file_methods(self.a):
            return False
        known = self._resolve(call) if call.func is not func0 else None
        if known is not None:  # `getattr(trainer, "on_step_end")` of a known instance of this file's class
            options = [known[:2]]
        else:
            options = possible_methods(call, self.a.classes, self.names, *_built_and_imported(self.a))
        if not options:
            return False
        recv = func.value.value if type(func.value) is ast.Subscript else func.value
        path, each = _over_each(path, dotted(recv))
        listed = _listed_classes(self.a, _items(self.a, each.iter, self._unit()), self._unit()) if each else None
        if listed is not None:  # `callbacks=[Clip(), Log()]`: each item's method runs, in the list's order
            options = [(m, info) for info in listed for m in [method_of(self.a.classes, info, name)] if m is not None]
            arms = False
        else:
            arms = len(options) > 1
            if arms and not each:
                return False
        for i, (method, info) in enumerate(options):
            found = (method, info, 1)
            rename = _renaming(self.a, call, found, self._unit())
            where = path + (Arm(call, i),) if arms else path
            for e in self._helper_events(method, info):
                self.out.append(Event(e.kind, e.node, rename(e.target), where + e.path, e.scaled, e.model_zero))
        return True

    def _call_value(self, call: ast.Call, path: tuple) -> bool:
        """Inline what calling a name that holds a function runs: `after_step(model)` where every call of
        this function passes the parameter `after_step` one function (or instance with `__call__`) of
        this file, or `hook(model)` in `for hook in hooks:` (each function the file hands on as a value,
        each in its own arm)."""
        name = call.func.id
        a = self.a
        if name in a.functions or name in a.classes:
            return False
        ctor = a.names.constructed.get(name) if name != "self" else None
        info = self.cls if name == "self" else a.classes.get(ctor.func.id) if type(ctor) is ast.Call \
            and type(ctor.func) is ast.Name else None
        method = method_of(a.classes, info, "__call__") if info is not None and not info.is_module else None
        if method is not None:  # `self("after_backward")`, `clipper(model)`: the class's `__call__`
            found = (method, info, 1)
            rename = _renaming(a, call, found, self._unit())
            for e in self._helper_events(method, info, _hook_names(call, found)):
                self.out.append(Event(e.kind, e.node, rename(e.target), path + e.path, e.scaled, e.model_zero))
            return True
        options = []
        function = self.function
        params = [p.arg for p in function.args.posonlyargs + function.args.args + function.args.kwonlyargs] \
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        path, loop = _over_each(path, name)
        arms = False
        if loop:
            items = _items(a, loop.iter, self._unit())
            items = [_unwrap_partial(i) for i in items] if items is not None else None
            if items is not None and all(type(i) is ast.Lambda or type(i) is ast.Name and i.id in a.functions
                                         for i in items):  # `hooks=[clip_grads, lambda m: ...]`, in order
                options = [(a.functions[i.id] if type(i) is ast.Name else i, None) for i in items]
            else:
                options = _callable_values(a)
                arms = len(options) > 1
        elif name in params and name not in a.unit_of[id(function)].bindings:
            given = _passed_everywhere(a, function, name)
            options = [given] if given is not None else []
        if not options:
            return False
        for i, (target, info) in enumerate(options):
            where = path + (Arm(call, i),) if arms else path
            for e in self._helper_events(target, info):
                self.out.append(Event(e.kind, e.node, e.target, where + e.path, e.scaled, e.model_zero))
        return True

    def _manager(self, expr: ast.expr) -> tuple:
        """What entering and leaving `with expr:` runs of this file: `(target, owner, part)` each, or None.

        An instance of the file's class (`StepGuard(opt)`, a name built from one): its `__enter__` and
        `__exit__`. A `@contextmanager` function of the file: its body before the `yield`, and after it.
        """
        a = self.a
        if type(expr) is ast.Call and type(expr.func) is ast.Name and expr.func.id in a.functions:
            function = a.functions[expr.func.id]
            if any((dotted(d) or "").endswith("contextmanager") for d in function.decorator_list):
                return (function, None, "enter"), (function, None, "exit")
            return None, None
        ctor = expr if type(expr) is ast.Call else a.names.constructed.get(dotted(expr)) if type(expr) in _NAMED else None
        info = a.classes.get(ctor.func.id) if type(ctor) is ast.Call and type(ctor.func) is ast.Name else None
        if info is None:
            return None, None
        enter, leave = method_of(a.classes, info, "__enter__"), method_of(a.classes, info, "__exit__")
        return ((enter, info, None) if enter is not None else None), ((leave, info, None) if leave is not None else None)

    def _inline(self, found, manager: ast.expr, path: tuple) -> None:
        """The events of entering or leaving a context manager, named as the `with` line names things."""
        if found is None:
            return
        target, owner, part = found
        call = manager if owner is None else ast.Call(ast.Attribute(manager, target.name, ast.Load()), [], [])
        rename = _renaming(self.a, call, (target, owner, 0 if owner is None else 1), self._unit())
        for e in self._helper_events(target, owner, part=part):
            self.out.append(Event(e.kind, e.node, rename(e.target), path + e.path, e.scaled, e.model_zero))

    def _unit(self):
        """The unit whose body this is: the function's, or the module's."""
        return self.a.unit_of.get(id(self.function) if self.function is not None else id(self.a.tree))

    def _resolve(self, call: ast.Call):
        """The function or method of this file that `call` runs, with its class (calls.resolve); a
        construction of the file's class runs its `__init__` (`StepGuard(opt)` hands `opt` to no unknown)."""
        if type(call.func) not in _NAMED:
            return None
        return resolve(call, self.a.functions, self.a.classes, self.cls, self.names, init=True,
                       methods=file_methods(self.a))

    def _statement(self, call: ast.Call) -> bool:
        """`torch.set_grad_enabled(False)` on its own line switches the mode; `with torch.set_grad_enabled(...)` is scoped."""
        return call.lineno in self.a.grad_switch_lines

    def _helper_events(self, target: ast.AST, owner=None, hooks: tuple = (), part: str | None = None) -> list[Event]:
        """The events of a same-file helper, computed once per file (a helper is often called from many loops),
        and once per hook name it is given (`self.notify("on_grad_computed")`, see `_hook_names`)."""
        memo = self.a.__dict__.setdefault("_helper_events", {})
        key = (id(target), hooks, part) if hooks or part else id(target)
        left = _MAX_DEPTH - len(self.active)  # how many more levels of helpers may be followed from here
        found = memo.get(key)
        if found is not None and (found[1] is None or found[1] >= left):
            if found[1] is not None:
                self.truncated = True
            return found[0] or []
        if left <= 0:
            self.truncated = True
            return []
        memo[key] = (None, None)  # in progress: a recursive helper contributes nothing to itself
        sub = _Builder(self.a, owner.name if owner is not None else None)
        sub.active = self.active + [target]
        sub.function = target
        sub.hooks = dict(hooks)
        body = target.body if type(target) is not ast.Lambda else [ast.copy_location(ast.Expr(target.body), target.body)]
        sub.stmts(_around_yield(body)[part == "exit"] if part else body, ())
        # Cut short by the depth limit: good only for callers as deep or deeper (a shallower one sees further).
        memo[key] = (sub.out, left if sub.truncated else None)
        self.truncated = self.truncated or sub.truncated
        return sub.out


_HEAD = re.compile(r"([^.\[]*)(.*)", re.S)  # `self` and `.opt[0]` of `self.opt[0]`


def _renaming(a: FileAnalysis, call: ast.Call, found, caller=None):
    """How the optimizer names of a helper's events read at one call site of it.

    `def update(opt): opt.step()` called as `update(self.opt_d)` steps `self.opt_d`; a method of
    another object (`state.reset()`) whose `self.optimizer` its `__init__` took from the same name
    at every construction (`StepState(model, opt)`) clears `opt`, or the parameter of the calling
    function that every call of it passes `opt` (`train(model, opt, state)`). A name is only
    replaced by one that is known at least as well (an optimizer the file builds stays one).
    """
    function, owner, skip = found
    params = [p.arg for p in function.args.posonlyargs + function.args.args][skip:]
    unit = a.unit_of.get(id(function))
    local = unit.bindings if unit is not None else {}
    passed: dict[str, str] = {}
    for param, arg in list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg]:
        if type(arg) is ast.Starred:
            break
        text = dotted(arg) or item_key(arg)
        if text is not None and param not in local:
            passed[param] = text
    recv = call.func.value if type(call.func) is ast.Attribute else None
    foreign = owner is not None and recv is not None and dotted(recv) != "self"
    if not passed and not foreign:
        return lambda t: t
    kinds = a.names.kind

    def rename(target: str | None) -> str | None:
        if target is None:
            return None
        head, rest = _HEAD.match(target).groups()
        if head == "self" and foreign and rest.startswith("."):
            attr, tail = _HEAD.match(rest[1:]).groups()
            alias = _attribute_alias(a, owner, attr)
            new = _as_seen_by(a, caller, alias) + tail if alias is not None else None
        elif head in passed:
            new = passed[head] + rest
        else:
            return target
        if new is None or (kinds.get(new) is None and kinds.get(target) is not None):
            return target
        return new

    return rename


def _argument(call: ast.Call, function: ast.AST, param: str, skip: int) -> ast.expr | None:
    """What `call` passes to `function`'s parameter `param` (by keyword or position, `skip` implicit
    leading ones: `self`), or None where it passes nothing or a `*args` could hold it."""
    arg = next((k.value for k in call.keywords if k.arg == param), None)
    if arg is not None:
        return arg
    ordered = [p.arg for p in function.args.posonlyargs + function.args.args][skip:]
    if param not in ordered:
        return None
    i = ordered.index(param)
    if any(type(x) is ast.Starred for x in call.args[: i + 1]) or i >= len(call.args):
        return None
    return call.args[i]


def _skip(a: FileAnalysis, call: ast.Call, ctx) -> int:
    """How many leading parameters a call of this file's function fills implicitly (`self`)."""
    resolved = callee(a, call, ctx.unit)
    return resolved[2] if resolved is not None else 0


def _as_seen_by(a: FileAnalysis, caller, name: str) -> str:
    """`name` (bound where an object was built) as the calling function knows it: itself, or the one
    parameter of that function which every call of it passes `name`."""
    function = caller.node if caller is not None else None
    head = _HEAD.match(name).group(1)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or head in caller.bindings:
        return name
    params = [p.arg for p in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
    if head in params:
        return name
    sites = call_sites(a, function)
    found = set()
    for param in params:
        given = set()
        for call, ctx in sites:
            arg = _argument(call, function, param, _skip(a, call, ctx))
            given.add(dotted(arg) if arg is not None else None)
        if sites and given == {head}:
            found.add(param)
    return found.pop() + name[len(head):] if len(found) == 1 else name


def _attribute_alias(a: FileAnalysis, owner, attr: str) -> str | None:
    """The name every construction of `owner` passes to the `__init__` parameter stored in `self.attr`.

    Only when `self.attr` is assigned once in the class, in `__init__`, from a parameter
    left unassigned there, and every `Owner(...)` of the file passes that parameter the same name.
    """
    memo = a.__dict__.setdefault("_attribute_alias", {})
    key = (owner.name, attr)
    if key in memo:
        return memo[key]
    memo[key] = None
    stores = []
    for method in owner.methods.values():
        unit = a.unit_of.get(id(method))
        if unit is not None:
            stores += [(method, b) for b in unit.bindings.get(f"self.{attr}", ())]
    if len(stores) != 1 or stores[0][0].name != "__init__" or type(stores[0][1].value) is not ast.Name:
        return None
    init, binding = stores[0]
    param = binding.value.id
    params = [p.arg for p in init.args.posonlyargs + init.args.args][1:]
    init_unit = a.unit_of.get(id(init))
    if param not in params + [p.arg for p in init.args.kwonlyargs] or param in init_unit.bindings:
        return None
    names: set[str | None] = set()
    for call, _ in a.calls:
        if type(call.func) is not ast.Name or call.func.id != owner.name:
            continue
        arg = _argument(call, init, param, 1)
        names.add(dotted(arg) if arg is not None else None)
    if len(names) == 1 and None not in names:
        memo[key] = names.pop()
    return memo[key]


def _over_each(path: tuple, key: str | None) -> tuple[tuple, ast.stmt | None]:
    """`path` with the loop whose target `key` is (`for cb in callbacks`) marked `Each`, and that loop."""
    for i, m in enumerate(path):
        if type(m) in (ast.For, ast.AsyncFor) and key is not None and dotted(m.target) == key:
            return path[:i] + (Each(m),) + path[i + 1:], m
    return path, None


def _items(a: FileAnalysis, expr: ast.expr, unit, depth: int = 4) -> list[ast.expr] | None:
    """The items of the list a loop iterates, where the file writes it down: a literal, or a name bound
    once to one (`callbacks = [Clip(), Log()]`), through `self.callbacks = list(callbacks)` in `__init__`
    and a parameter, when the file builds or calls it once (`Trainer(model, callbacks=[...])`)."""
    while True:
        if type(expr) is ast.Call and type(expr.func) is ast.Name and expr.func.id in ("list", "tuple") \
                and len(expr.args) == 1 and not expr.keywords:
            expr = expr.args[0]
        elif type(expr) is ast.BoolOp and type(expr.op) is ast.Or:
            expr = expr.values[0]  # `callbacks or []`
        else:
            break
    if type(expr) in (ast.List, ast.Tuple):
        return None if any(type(e) is ast.Starred for e in expr.elts) else list(expr.elts)
    key = dotted(expr)
    if key is None or depth <= 0 or unit is None or _grown(a, key.rsplit(".", 1)[-1]):
        return None
    if key.startswith("self.") and key.count(".") == 1 and unit.cls is not None:
        stores = [(m, b) for m in unit.cls.methods.values() for b in a.unit_of[id(m)].bindings.get(key, ())]
        if len(stores) != 1 or stores[0][0].name != "__init__":
            return None
        method, binding = stores[0]
        return _items(a, binding.value, a.unit_of[id(method)], depth - 1)
    if "." in key:
        return None
    bindings = unit.bindings.get(key, ())
    if len(bindings) == 1:
        return _items(a, bindings[0].value, unit, depth - 1)
    function = unit.node
    if bindings or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    sites = call_sites(a, function) if function.name != "__init__" or unit.cls is None else [
        (c, ctx) for c, ctx in a.calls if type(c.func) is ast.Name and c.func.id == unit.cls.name]
    if len(sites) != 1:
        return None
    site, ctx = sites[0]
    params = [p.arg for p in function.args.posonlyargs + function.args.args]
    arg = _argument(site, function, key, 1 if params[:1] == ["self"] else 0)
    if arg is None and not any(type(x) is ast.Starred for x in site.args) and all(k.arg for k in site.keywords):
        given = function.args
        defaults = dict(zip([p.arg for p in given.posonlyargs + given.args][::-1], given.defaults[::-1]))
        defaults.update((p.arg, d) for p, d in zip(given.kwonlyargs, given.kw_defaults) if d is not None)
        default = defaults.get(key)  # `callbacks=()` left out at the one call: the default
        return _items(a, default, unit, depth - 1) if default is not None else None
    return _items(a, arg, ctx.unit, depth - 1) if arg is not None else None


def _grown(a: FileAnalysis, name: str) -> bool:
    """Whether a list of that name is added to anywhere in the file (`self.callbacks.append(cb)`, `+=`)."""
    return re.search(rf"\b{re.escape(name)}\s*(\.\s*(append|extend|insert)\s*\(|\+=|\[[^\]]*\]\s*=[^=])", a.source) is not None


def _listed_classes(a: FileAnalysis, items: list[ast.expr] | None, unit) -> list | None:
    """The class of this file each item builds (`Clip()`, or a name bound to `Clip()`), or None if one is unknown."""
    if items is None:
        return None
    out = []
    for item in items:
        ctor = item if type(item) is ast.Call else None
        if ctor is None and type(item) is ast.Name and unit is not None and len(unit.bindings.get(item.id, ())) == 1:
            ctor = unit.bindings[item.id][0].value
        if ctor is None and type(item) in _NAMED:
            ctor = a.names.constructed.get(dotted(item))
        info = a.classes.get(ctor.func.id) if type(ctor) is ast.Call and type(ctor.func) is ast.Name else None
        if info is None:
            return None
        out.append(info)
    return out


def _callable_values(a: FileAnalysis) -> list[tuple[ast.AST, object]]:
    """What a callable taken from a list may run: each module-level function of the file that it names
    without calling it (`hooks=[clip_grads, log_norms]`), and each built class of it with a `__call__`
    that is no nn.Module (cached on `a`)."""
    cached = a.__dict__.get("_callable_values")
    if cached is None:
        called = {id(c.func) for c, _ in a.calls}
        used = {n.id for n in ast.walk(a.tree) if type(n) is ast.Name and type(n.ctx) is ast.Load and id(n) not in called}
        cached = [(a.functions[f], None) for f in sorted(used) if f in a.functions]
        built = _built_and_imported(a)[0]
        cached += [(info.methods["__call__"], info) for info in a.classes.values()
                   if info.name in built and not info.is_module and "__call__" in info.methods]
        a._callable_values = cached  # type: ignore[attr-defined]
    return cached


def _passed_everywhere(a: FileAnalysis, function: ast.AST, param: str):
    """`(function, None)` or `(__call__, class)` that every call of `function` in the file passes to `param`."""
    found = set()
    sites = call_sites(a, function)
    for call, ctx in sites:
        arg = _argument(call, function, param, _skip(a, call, ctx))
        if arg is None or any(k.arg is None for k in call.keywords):
            return None
        arg = _unwrap_partial(arg)
        if type(arg) is ast.Name and arg.id in a.functions:
            found.add((a.functions[arg.id], None))
            continue
        if type(arg) is ast.Lambda:  # `after_step=lambda m: clip(m, 1.0)`
            found.add((arg, None))
            continue
        ctor = a.names.constructed.get(dotted(arg)) if type(arg) in _NAMED else arg if type(arg) is ast.Call else None
        info = a.classes.get(ctor.func.id) if type(ctor) is ast.Call and type(ctor.func) is ast.Name else None
        if info is None or info.is_module or "__call__" not in info.methods:
            return None
        found.add((info.methods["__call__"], info))
    return found.pop() if len(found) == 1 else None


def _around_yield(body: list[ast.stmt]) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """A `@contextmanager` body split at its `yield` statement (also one inside `try:`, its `finally:`
    after): what entering runs, and what leaving runs. Both empty when the yield sits elsewhere."""
    for i, stmt in enumerate(body):
        if _is_yield(stmt):
            return body[:i], body[i + 1:]
        if type(stmt) is ast.Try:
            for j, inner in enumerate(stmt.body):
                if _is_yield(inner):
                    return body[:i] + stmt.body[:j], stmt.body[j + 1:] + stmt.orelse + stmt.finalbody + body[i + 1:]
    return [], []


def _is_yield(stmt: ast.stmt) -> bool:
    return type(stmt) is ast.Expr and type(stmt.value) is ast.Yield


def _unwrap_partial(arg: ast.expr) -> ast.expr:
    """`functools.partial(clip, max_norm=1.0)` calls `clip`."""
    if type(arg) is ast.Call and (dotted(arg.func) or "").split(".")[-1] == "partial" and arg.args:
        return arg.args[0]
    return arg


def _hook_names(call: ast.Call, found) -> tuple:
    """`(parameter, "on_grad_computed")` for each string a call gives a helper that calls `getattr(x, parameter)`."""
    function, _, skip = found
    params = [p.arg for p in function.args.posonlyargs + function.args.args][skip:]
    given = [(p, a) for p, a in zip(params, call.args)] + [(k.arg, k.value) for k in call.keywords if k.arg]
    given = [(p, a.value) for p, a in given if type(a) is ast.Constant and type(a.value) is str]
    if not given:
        return ()
    used = {n.args[1].id for n in ast.walk(function) if type(n) is ast.Call and type(n.func) is ast.Name
            and n.func.id == "getattr" and len(n.args) >= 2 and type(n.args[1]) is ast.Name}
    return tuple(sorted((p, v) for p, v in given if p in used))


def _built_and_imported(a: FileAnalysis) -> tuple[frozenset[str], frozenset[str]]:
    """The classes of the file that it builds (`Clipper(...)`), and the names it imports (cached on `a`)."""
    cached = a.__dict__.get("_built_and_imported")
    if cached is None:
        built = frozenset(c.func.id for c, _ in a.calls if type(c.func) is ast.Name and c.func.id in a.classes)
        imported = frozenset(
            (alias.asname or alias.name).split(".", 1)[0]
            for node in ast.walk(a.tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names
        )
        cached = a._built_and_imported = (built, imported)  # type: ignore[attr-defined]
    return cached


def _key(node: ast.AST, names: Names) -> str | None:
    """The optimizer a receiver names: an item of a container of optimizers by its key
    (`self.optimizers['d']`), else the container or name itself (`opts[i]` is `opts`)."""
    item = item_key(node)
    if item is not None and item in names.kind:
        return item
    while isinstance(node, ast.Subscript):
        node = node.value
    return dotted(node)


def _is_module_call(recv: ast.AST) -> bool:
    # `torch.autograd.backward` is handled separately; `x.backward` where x is e.g. `self` is
    # a method of the user's own class (a custom autograd Function's static backward).
    return isinstance(recv, ast.Name) and recv.id in ("self", "cls", "ctx", "super")


def _is_torch_utils(recv: ast.AST) -> bool:
    text = dotted(recv) or ""
    return text.endswith("utils") or text.endswith("clip_grad") or text in ("nn", "torch")


def _clears_grad(stmt: ast.Assign) -> bool:
    """`p.grad = None` (or zeroed) clears gradients like zero_grad does; a gradient assigned from
    another tensor (`p.grad = q.grad / n`, a meta-gradient taken from an adapted copy) fills them."""
    if not any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in stmt.targets):
        return False
    value = stmt.value
    if isinstance(value, ast.Constant):
        return value.value is None or value.value == 0
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in ("zeros_like", "zeros")
    return False


def unit_events(body: list[ast.stmt], analysis: FileAnalysis, cls_name: str | None = None, function: ast.AST | None = None):
    """One pass over a function (or module) body: its events in order, and each loop's slice of them."""
    builder = _Builder(analysis, cls_name)
    builder.function = function
    builder.stmts(body, ())
    return builder.out, builder.spans

