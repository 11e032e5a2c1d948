"""The global instrumentation: installed once, shared by every active session.

`graddoctor run` on a script that itself calls `graddoctor.watch()` gives two
sessions at once; the patches (declared under `OWNER` in
session/instrumentation.py) are installed for the first and removed with the
last, and every event goes to every active session.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

import torch
from torch.optim import lr_scheduler

from graddoctor.internal import guarded
from graddoctor.locate import user_location
from graddoctor.session.manual_steps import ManualSteps
from graddoctor.session.observer import BackwardEvent, CallEvent
from graddoctor.session import compiled, instrumentation, processes

OWNER = "dispatch"  # the training loop's calls, sent to every attached session
_sessions: list[Any] = []
_handles: list[Any] = []
_state = threading.local()


# Nesting is counted per kind (a plain attribute of `_state`, read and set inline by each wrapper),
# so that SequentialLR stepping its children, or GradScaler.step calling unscale_, is reported
# once, as the user's call: no helper call and no context manager per wrapped call, which were a
# visible part of a sub-millisecond step.


manual = ManualSteps(lambda: list(_sessions), lambda: getattr(_state, "stepping", None))


def active_sessions() -> list[Any]:
    return list(_sessions)


def register(session) -> None:
    instrumentation.attach(OWNER, session)
    _sessions.append(session)


def unregister(session) -> None:
    if session in _sessions:
        _sessions.remove(session)
    instrumentation.detach(OWNER, session)


def _start() -> None:
    """With the first session: torch's global optimizer hooks, and graddoctor hidden from compiled code."""
    _register_step_hooks()
    compiled.install(active_sessions)


def _stop() -> None:
    try:
        manual.uninstall()
        _state.stepping = None  # a step that raised leaves it set; the next session starts clean
        while _handles:
            _handles.pop().remove()
    finally:
        compiled.uninstall()


def _declare_warnings() -> None:
    import warnings

    from graddoctor.session.warnsite import make_show

    instrumentation.declare(OWNER, warnings, "_showwarnmsg", lambda original: make_show(original, active_sessions))


def _declare_module_state() -> None:
    """graddoctor's hooks on the user's modules are never part of their state.

    `torch.save(model)`, `pickle`, `copy.deepcopy(model)` (an EMA or target network) and
    multiprocessing all go through `nn.Module.__getstate__`. Our per-module hooks are closures
    and methods of our observers: pickled, they fail ("Can't pickle local object"); copied,
    they would drag the session along and report on the copy as if it were the original.
    The state handed out is the module as the user built it, hooks of their own included.
    """
    import torch.nn as nn

    from graddoctor.session.compiled import is_ours

    def make(original: Callable) -> Callable:
        def __getstate__(self):
            state = original(self)
            for key in ("_forward_hooks", "_forward_pre_hooks"):
                hooks = state.get(key)
                if hooks and any(is_ours(hook) for hook in hooks.values()):
                    state[key] = type(hooks)((k, h) for k, h in hooks.items() if not is_ours(h))
            return state

        return __getstate__

    instrumentation.declare(OWNER, nn.Module, "__getstate__", make)


# --- backward ---------------------------------------------------------------------------


def _declare_backward() -> None:
    def make(original: Callable) -> Callable:
        def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, *args, **kwargs):
            if not _sessions or getattr(_state, "backward", 0):
                return original(tensors, grad_tensors, retain_graph, create_graph, *args, **kwargs)
            if manual.pending:
                manual.end()
            _state.backward = 1
            try:
                event = BackwardEvent(
                    loss=tensors,
                    where=user_location(sys._getframe(1)),
                    index=0,
                    step=0,
                    retain_graph=retain_graph,
                    create_graph=create_graph,
                    grad_mode=torch.is_grad_enabled(),
                    extra={"gradient": grad_tensors, "inputs": kwargs.get("inputs")},
                )
                for session in list(_sessions):
                    session.begin_backward(event)
                try:
                    result = original(tensors, grad_tensors, retain_graph, create_graph, *args, **kwargs)
                except BaseException as exc:
                    for session in list(_sessions):
                        session.backward_failed(event, exc)
                    raise
                for session in list(_sessions):
                    session.after_backward(event)
                if not manual.real_stepped:  # after a real step the manual-step tracker is done for good
                    _guarded(lambda: manual.after_backward(tensors))
                # Observers may keep the event (its line); they must not keep the loss,
                # or its graph would outlive the iteration (and be reported as GD207).
                event.loss = None
                event.extra = {}
                return result
            finally:
                _state.backward = 0

        return backward

    instrumentation.declare(OWNER, torch.autograd, "backward", make)


# --- optimizers -------------------------------------------------------------------------


def _declare_optimizer() -> None:
    def make_init(original: Callable) -> Callable:
        def __init__(self, *args, **kwargs):
            original(self, *args, **kwargs)
            if _sessions:
                where = user_location(sys._getframe(1))
                for session in list(_sessions):
                    session.optimizer_created(self, where)

        return __init__

    instrumentation.declare(OWNER, torch.optim.Optimizer, "__init__", make_init)


def _register_step_hooks() -> None:
    # A wrapper optimizer (Lookahead and the like) steps an inner one: only the
    # outermost step is the user's. A step that raised leaves `stepping` set, so
    # a later step of the same optimizer counts as outermost again.
    # step(closure) runs the closure (forward, zero_grad, backward) inside the step:
    # Lightning's automatic optimization and LBFGS do. The step begins, as far as
    # the loop audit is concerned, when the closure has returned.
    def begin(optimizer, where) -> None:
        _state.step_begun = True
        for session in list(_sessions):
            session.begin_step(optimizer, where)

    def pre_hook(optimizer, args, kwargs):
        current = getattr(_state, "stepping", None)
        if current is not None and current is not optimizer:
            return None
        if manual.pending or not manual.real_stepped:  # (manual.settled, without a property call per step)
            _guarded(manual.real_step)
        _state.stepping = optimizer
        _state.step_begun = False
        where = user_location(sys._getframe(1))
        in_args = len(args) > 1 and callable(args[1])
        closure = args[1] if in_args else kwargs.get("closure")
        if not callable(closure):
            begin(optimizer, where)
            return None

        def closure_then_step(*a, **k):
            try:
                result = closure(*a, **k)
            except BaseException:
                _state.stepping = None  # the step ends here: its post hook will not run
                raise
            if not getattr(_state, "step_begun", True) and getattr(_state, "stepping", None) is optimizer:
                begin(optimizer, where)
            return result

        if in_args:
            return (args[0], closure_then_step, *args[2:]), kwargs
        return args, {**kwargs, "closure": closure_then_step}

    def post_hook(optimizer, args, kwargs):
        if getattr(_state, "stepping", None) is not optimizer:
            return
        if not getattr(_state, "step_begun", True):  # the closure was never called
            begin(optimizer, user_location(sys._getframe(1)))
        _state.stepping = None
        for session in list(_sessions):
            session.end_step(optimizer)

    from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

    _handles.append(register_optimizer_step_pre_hook(pre_hook))
    _handles.append(register_optimizer_step_post_hook(post_hook))


# --- zero_grad, clipping, schedulers, GradScaler ------------------------------------------


def _guarded(call: Callable[[], None]) -> None:
    """Our own bookkeeping outside any observer: a failure of it is recorded, never the user's."""
    with guarded(list(_sessions), "manual steps"):
        call()


def flush_manual_step() -> None:
    """The session ends: a manual step in progress is complete."""
    _guarded(manual.end)


def _call_event(kind: str, method: str, target, args: tuple, kwargs: dict, result=None) -> None:
    if manual.pending:
        manual.end()
    where = user_location(sys._getframe(2))
    event = CallEvent(kind=kind, target=target, where=where, step=0, method=method, args=args, kwargs=kwargs, result=result)
    for session in list(_sessions):
        session.on_call(event)


def _method_wrapper(kind: str, method: str, skip_callers: tuple[str, ...] = ()) -> Callable:
    def make(original: Callable) -> Callable:
        def wrapper(self, *args, **kwargs):
            if not _sessions:
                return original(self, *args, **kwargs)
            depth = getattr(_state, kind, 0)
            setattr(_state, kind, depth + 1)
            try:
                result = original(self, *args, **kwargs)
            finally:
                setattr(_state, kind, depth)
            if not depth and (not skip_callers or sys._getframe(1).f_code.co_name not in skip_callers):
                _call_event(kind, method, self, args, kwargs, result)
            return result

        return wrapper

    return make


def _function_wrapper(kind: str, method: str) -> Callable:
    def make(original: Callable) -> Callable:
        def wrapper(*args, **kwargs):
            if not _sessions:
                return original(*args, **kwargs)
            depth = getattr(_state, kind, 0)
            setattr(_state, kind, depth + 1)
            try:
                result = original(*args, **kwargs)
            finally:
                setattr(_state, kind, depth)
            if not depth:
                _call_event(kind, method, None, args, kwargs, result)
            return result

        return wrapper

    return make


def _declare_zero_grad() -> None:
    instrumentation.declare(OWNER, torch.optim.Optimizer, "zero_grad", _method_wrapper("zero_grad", "optimizer"))
    instrumentation.declare(OWNER, torch.nn.Module, "zero_grad", _method_wrapper("zero_grad", "module"))


def _declare_clipping() -> None:
    from torch.nn.utils import clip_grad

    for name in ("clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_"):
        for owner in (torch.nn.utils, clip_grad):
            if hasattr(owner, name):
                instrumentation.declare(OWNER, owner, name, _function_wrapper("clip", name))


def _declare_schedulers() -> None:
    classes = [lr_scheduler.LRScheduler] + [
        cls
        for cls in vars(lr_scheduler).values()
        if isinstance(cls, type) and issubclass(cls, lr_scheduler.LRScheduler) and "step" in cls.__dict__
        and cls is not lr_scheduler.LRScheduler
    ]
    for cls in classes:
        # LRScheduler.__init__ takes its first step itself: that one is not the user's.
        instrumentation.declare(OWNER, cls, "step", _method_wrapper("scheduler", "step", skip_callers=("_initial_step", "__init__")))


def _declare_scaler() -> None:
    from torch.amp import grad_scaler

    for name in ("scale", "unscale_", "step", "update"):
        instrumentation.declare(OWNER, grad_scaler.GradScaler, name, _method_wrapper("scaler", name))


def _declare_loaders() -> None:
    # iter(loader) begins a pass over the data: the loop audit counts scheduler steps per pass.
    from torch.utils.data import DataLoader

    instrumentation.declare(OWNER, DataLoader, "__iter__", _method_wrapper("loader", "iter"))


def _declare() -> None:
    _declare_backward()
    _declare_optimizer()
    _declare_zero_grad()
    _declare_clipping()
    _declare_schedulers()
    _declare_scaler()
    _declare_warnings()
    _declare_module_state()
    _declare_loaders()
    processes.declare(OWNER, active_sessions)
    instrumentation.on_attach(OWNER, _start, _stop)


_declare()
