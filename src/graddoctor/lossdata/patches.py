"""The entry points the loss-and-data observers listen at, installed once for all of them.

`torch.nn.functional`'s loss functions (the nn loss modules call them), the
constructors of module containers (to know the line that built a
`ModuleList`), and `DataLoader` construction and iteration (to know which
loader, built where, feeds the loop). Declared in session/instrumentation.py's
registry under `OWNER`: installed with the first listener and removed with the
last; a listener's failure is its own and never reaches the user.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.data import DataLoader

from graddoctor.internal import record_internal_error
from graddoctor.locate import Location, user_location
from graddoctor.session import instrumentation

# The losses that are looked at, by function name (what `nn.*Loss.forward` calls).
LOSSES = (
    "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits", "binary_cross_entropy",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
)
CONTAINERS = (nn.ModuleList, nn.Sequential, nn.ModuleDict)

OWNER = "loss and data"
_listeners: list[Any] = []
built_at: "weakref.WeakKeyDictionary[Any, Location]" = weakref.WeakKeyDictionary()  # container or loader -> line
_last_loader: list = [None]  # weak reference to the DataLoader whose iteration began last
_inside = threading.local()  # `active`: a loss call is under way on this thread
# The listeners' bound methods the loss wrapper calls, rebuilt when one comes or goes: a method marked
# `ignored` (it does nothing) is left out, so a loss call costs only the calls that do something.
_on_loss: tuple = ()
_on_result: tuple = ()


def ignored(method: Callable) -> Callable:
    """Marks a listener's `on_loss` or `on_loss_result` that does nothing: the wrapper does not call it."""
    method.ignored_by_loss_wrapper = True  # type: ignore[attr-defined]
    return method


def _rebuild() -> None:
    global _on_loss, _on_result
    on_loss, on_result = [], []
    for listener in _listeners:
        for method, into in ((listener.on_loss, on_loss), (listener.on_loss_result, on_result)):
            if not getattr(method, "ignored_by_loss_wrapper", False):
                into.append(method)
    _on_loss, _on_result = tuple(on_loss), tuple(on_result)


def last_loader() -> DataLoader | None:
    ref = _last_loader[0]
    return ref() if ref is not None else None


def listen(listener) -> None:
    """Start sending loss calls to `listener.on_loss(name, args, kwargs, caller_frame)`, and their
    results to `listener.on_loss_result(result, caller_frame)`."""
    instrumentation.attach(OWNER, listener)
    if listener not in _listeners:
        _listeners.append(listener)
        _rebuild()


def unlisten(listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)
        _rebuild()
    instrumentation.detach(OWNER, listener)
    if not _listeners:
        _last_loader[0] = None


def _declare() -> None:
    # Hidden from compiled code: a compiled model calling F.cross_entropy sees torch's own.
    def declare(target: Any, attr: str, make: Callable[[Callable], Callable]) -> None:
        instrumentation.declare(OWNER, target, attr, make, hidden_when_compiled=True)

    for name in LOSSES:
        declare(F, name, _loss_wrapper(name))
    for cls in CONTAINERS:
        declare(cls, "__init__", _remember_construction)
    declare(DataLoader, "__init__", _remember_construction)
    declare(DataLoader, "__iter__", _remember_iteration)


def _loss_wrapper(name: str) -> Callable[[Callable], Callable]:
    def make(original: Callable) -> Callable:
        def loss(*args, **kwargs):
            # Under a torch function mode (deep mode, any user mode) the original calls
            # `handle_torch_function(<its module-level name>)`, which is this wrapper again:
            # the inner call is the same loss call, not a second one.
            # Inside compiled code dynamo would trace our bookkeeping (a graph break): skip it there.
            if not _listeners or getattr(_inside, "active", False) or torch.compiler.is_compiling():
                return original(*args, **kwargs)
            frame = sys._getframe(1)
            for on_loss in _on_loss:
                on_loss(name, args, kwargs, frame)  # guards itself: never raises
            _inside.active = True
            try:
                result = original(*args, **kwargs)
            finally:
                _inside.active = False
            for on_result in _on_result:
                on_result(result, frame)  # guards itself: never raises
            return result

        return loss

    return make


def _remember_construction(original: Callable) -> Callable:
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if _listeners and self not in built_at:
            try:
                built_at[self] = user_location(sys._getframe(1))
            except TypeError:  # an object that cannot be a weak key: no line for it
                pass
            except Exception:  # our bug: recorded, never the user's failure
                sessions = [listener.session for listener in _listeners]
                record_internal_error(sessions, "recording the line that built a container or loader")

    return __init__


def _remember_iteration(original: Callable) -> Callable:
    def __iter__(self):
        if _listeners:
            _last_loader[0] = weakref.ref(self)
        return original(self)

    return __iter__


_declare()


def row_view(x: torch.Tensor) -> torch.Tensor:
    """The tensor as (rows, rest): one row per sample, detached."""
    x = x.detach()
    return x.reshape(x.shape[0], -1) if x.dim() > 1 else x.reshape(-1, 1)
