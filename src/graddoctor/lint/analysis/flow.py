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
Calls to functions and methods defined in the same file are followed (a few
levels deep), so a `train_step()` helper counts where it is called.
Calls we cannot see into that receive the optimizer are `opaque`: they may
step or clear gradients, so the checks stay silent about them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from graddoctor.lint.analysis.calls import resolve
from graddoctor.lint.analysis.model import FileAnalysis, calls_in
from graddoctor.lint.analysis.names import Names, call_name, dotted, item_key
from graddoctor.lint.analysis.returns import file_methods

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
_MAX_DEPTH = 3


@dataclass(frozen=True)
class Arm:
    """One arm of a branch statement: `if` body (0) or `else` (1), a handler's or a case's index."""

    node: ast.stmt
    index: int


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
        conditional = any(type(m) not in _LOOPS for m in rest)
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
            for item in stmt.items:
                self.exprs(item.context_expr, path)
            self.stmts(stmt.body, path)
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
        if self._resolve(call) is not None:  # the user's own `self.optimizer_step()`: what it does, not its name
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
            for e in self._helper_events(found[0], found[1]):
                self.out.append(Event(e.kind, e.node, e.target, path + e.path, e.scaled, e.model_zero) if path else e)
            return
        if not call.args and not call.keywords:
            return
        for arg in call.args + [k.value for k in call.keywords]:
            if type(arg) in _NAMED and self.names.is_optimizer(arg):
                self.out.append(Event("opaque", call, _key(arg, self.names), path))
                return


    def _resolve(self, call: ast.Call):
        """The function or method of this file that `call` runs, with its class (calls.resolve)."""
        if type(call.func) not in _NAMED:
            return None
        return resolve(call, self.a.functions, self.a.classes, self.cls, self.names, methods=file_methods(self.a))

    def _statement(self, call: ast.Call) -> bool:
        """`torch.set_grad_enabled(False)` on its own line switches the mode; `with torch.set_grad_enabled(...)` is scoped."""
        return call.lineno in self.a.grad_switch_lines

    def _helper_events(self, target: ast.AST, owner=None) -> list[Event]:
        """The events of a same-file helper, computed once per file (a helper is often called from many loops)."""
        memo = self.a.__dict__.setdefault("_helper_events", {})
        key = id(target)
        if key in memo:
            return memo[key] or []
        if len(self.active) >= _MAX_DEPTH:
            return []
        memo[key] = None  # in progress: a recursive helper contributes nothing to itself
        sub = _Builder(self.a, owner.name if owner is not None else None)
        sub.active = self.active + [target]
        sub.stmts(target.body, ())
        memo[key] = sub.out
        return sub.out


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


def unit_events(body: list[ast.stmt], analysis: FileAnalysis, cls_name: str | None = None):
    """One pass over a function (or module) body: its events in order, and each loop's slice of them."""
    builder = _Builder(analysis, cls_name)
    builder.stmts(body, ())
    return builder.out, builder.spans

