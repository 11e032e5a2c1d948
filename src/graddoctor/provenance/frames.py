"""Cheap looks at the Python stack: the user's frames, and who turned grad mode off.

The recorder calls these only at rare events (a cut, an in-place edit, a
grad-mode switch), never per op, so they may walk the whole stack.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from types import FrameType

import torch

from graddoctor.locate import Location, _column, is_user_file

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_GRAD_MODE_FILE = os.path.join(_TORCH_DIR, "autograd", "grad_mode.py")
_CONTEXTLIB_FILE = os.path.join(_TORCH_DIR, "utils", "_contextlib.py")
_CHECKPOINT_FILE = os.path.join(_TORCH_DIR, "utils", "checkpoint.py")
_GRAD_MODE_NAMES = {
    "no_grad": "torch.no_grad()",
    "set_grad_enabled": "torch.set_grad_enabled(False)",
    "inference_mode": "torch.inference_mode()",
    "enable_grad": "torch.enable_grad()",
}


def location_of(frame: FrameType, column: bool = True) -> Location:
    code = frame.f_code
    return Location(code.co_filename, frame.f_lineno, _column(frame) if column else None, code.co_name)


def user_chain(frame: FrameType | None, limit: int = 6, stop: FrameType | None = None) -> list[Location]:
    """The user frames from `frame` outwards, innermost first, ending at `stop` if met."""
    out: list[Location] = []
    while frame is not None and len(out) < limit:
        if is_user_file(frame.f_code.co_filename):
            out.append(location_of(frame, column=not out))  # the column only where it is shown
        if frame is stop:
            break
        frame = frame.f_back
    return out


@dataclass
class Region:
    """Where gradient recording was turned off, and the frame whose body runs without it.

    `body` is held only while the region is open (it is on the stack anyway) and
    dropped when it closes, so no frame, and none of its locals, outlives it.
    """

    entry: Location | None  # the `with torch.no_grad():` line, or the decorator line
    how: str  # "torch.no_grad()", "@torch.no_grad() on extract()", ...
    body: FrameType | None  # the user frame that runs under the region
    user: bool  # False: torch or a library turned it off (an optimizer step, say)

    def close(self) -> None:
        self.body = None

    def note(self) -> str:
        return f"gradient recording turned off here by {self.how}"


def find_region(frame: FrameType | None) -> Region:
    """Who switched grad mode off, judged from the frame that called into torch.

    Skips torch's grad-mode machinery; passing through `_contextlib`'s decorator
    wrapper means the switch came from a decorated function.
    """
    how = "torch.set_grad_enabled(False)"
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename == _GRAD_MODE_FILE:
            owner = frame.f_locals.get("self")
            if owner is not None:
                how = _GRAD_MODE_NAMES.get(type(owner).__name__, f"torch.{type(owner).__name__}()")
            frame = frame.f_back
            continue
        if filename == _CONTEXTLIB_FILE:
            func = frame.f_locals.get("func")
            code = getattr(func, "__code__", None)
            if code is not None and is_user_file(code.co_filename):
                caller = frame.f_back
                if caller is not None and not is_user_file(caller.f_code.co_filename):
                    caller = None  # called by a library (a DataLoader...): the op's own line is shown
                entry = Location(code.co_filename, code.co_firstlineno, None, code.co_name)
                decorated = f"@{how.removesuffix('(False)').removesuffix('()')}() on {code.co_name}()"
                return Region(entry, decorated, caller, True)
            return Region(None, how, None, False)
        if is_user_file(filename):
            return Region(location_of(frame), how, frame, True)
        return Region(None, how, None, False)
    return Region(None, how, None, False)


def body_location(region: Region, frame: FrameType | None) -> tuple[Location | None, list[Location]]:
    """The line inside the region's body that is running now, and the callers that led there."""
    if region.body is not None:
        here = location_of(region.body)
        outer = user_chain(region.body.f_back, limit=5)
        return here, [here] + [Location(o.file, o.line, None, o.function) for o in outer]
    chain = user_chain(frame)
    return (chain[0] if chain else None), chain


def reentrant_checkpoint_call(frame: FrameType | None) -> tuple[Location | None, bool] | None:
    """Inside a reentrant checkpoint's forward (`CheckpointFunction.forward`): the user's
    `checkpoint(...)` line, and whether none of its tensor inputs requires grad; else None.

    Only torch's own frame is read (its `args`, the checkpoint's inputs), never the user's locals.
    """
    while frame is not None:
        code = frame.f_code
        if code.co_filename == _CHECKPOINT_FILE and code.co_varnames[:2] == ("ctx", "run_function"):
            inputs = frame.f_locals.get("args", ())
            tensors = [a for a in inputs if isinstance(a, torch.Tensor)]
            without = bool(tensors) and not any(t.requires_grad for t in tensors)
            chain = user_chain(frame.f_back, limit=1)
            del frame, inputs, tensors
            return (chain[0] if chain else None), without
        frame = frame.f_back
    return None
