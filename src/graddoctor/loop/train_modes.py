"""Who set a module's training mode, and where: `nn.Module.train` (and `eval`, which calls it) watched.

GD211 names the user's last `model.train()` as the line that left a model in
training mode, and holds back when the user switched dropout layers on one by
one (MC dropout written on purpose). Only the outermost call counts: `train()`
recursing into the children is one call of the user's. `train` is called a few
times per epoch at most, so watching it costs nothing on the hot path.
Declared in session/instrumentation.py's registry: installed with the first
listener and removed with the last.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Callable

from torch import nn

from graddoctor.internal import record_internal_error
from graddoctor.locate import Location, user_location
from graddoctor.session import instrumentation

OWNER = "training modes"
_listeners: list[object] = []
_inside = threading.local()
# module -> (mode, the user's line) of the last call of the user's made on that very module
set_at: "weakref.WeakKeyDictionary[nn.Module, tuple[bool, Location]]" = weakref.WeakKeyDictionary()
version = [0]  # bumped at every user call: cached views of the modes are stale after it


def listen(listener: object) -> None:
    instrumentation.attach(OWNER, listener)
    if listener not in _listeners:
        _listeners.append(listener)


def unlisten(listener: object) -> None:
    if listener in _listeners:
        _listeners.remove(listener)
    instrumentation.detach(OWNER, listener)


def _watch_train(original: Callable) -> Callable:
    def train(self, mode: bool = True):
        if not _listeners or getattr(_inside, "active", False):
            return original(self, mode)
        _inside.active = True
        try:
            result = original(self, mode)
        finally:
            _inside.active = False
        try:
            set_at[self] = (bool(mode), user_location(sys._getframe(1)))
            version[0] += 1
        except TypeError:  # a module that cannot be a weak key (`__eq__` without `__hash__`): no line for it
            pass
        except Exception:  # our bug: recorded, never the user's failure
            record_internal_error([listener.session for listener in _listeners], "recording the line of train()")
        return result

    return train


instrumentation.declare(OWNER, nn.Module, "train", _watch_train, hidden_when_compiled=True)


def explicitly_set(module: nn.Module) -> bool:
    """Whether the user's code called `train()`/`eval()` on this very module (not through a parent)."""
    return module in set_at


def last_set(module: nn.Module) -> tuple[bool, Location] | None:
    return set_at.get(module)
