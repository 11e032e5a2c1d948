"""Warnings keep the line Python would give them: graddoctor's wrappers are invisible.

A warning names the frame `stacklevel` frames above `warnings.warn`. Our
wrappers (the patched `backward`, `optimizer.step`, `zero_grad`, deep mode's
TorchFunctionMode, which calls the torch function a second time through
`torch/overrides.py`) add frames to that stack, so `F.softmax(x)` without `dim`
would be reported at `graddoctor/provenance/recorder.py` instead of the user's
line. Both Python's and C's warnings go through `warnings._showwarnmsg`; while a
session is active, that function is wrapped: a warning that names one of our
frames is moved past the frames we inserted (ours, torch's dispatch and the
public function it re-enters) to the frame that called them, which is the frame
it would name without graddoctor. Warnings naming any other frame are untouched.

Known limit: the filter decision (`filterwarnings(module=...)`, the "default"
once-per-location registry) is taken in C before the hook sees the message, so
it still keys on our frame; what is shown and recorded is the user's line.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from types import FrameType

from graddoctor import locate


def _ours(filename: str) -> bool:
    return filename.startswith(locate._PACKAGE_DIR + os.sep) and not locate.is_user_file(filename)


def _dispatch(filename: str) -> bool:
    import torch.overrides

    return filename == torch.overrides.__file__


def _caller_outside(frame: FrameType) -> FrameType | None:
    """The first frame outward of `frame` that graddoctor did not insert."""
    f: FrameType | None = frame
    while f is not None:
        name = f.f_code.co_filename
        if _ours(name):
            f = f.f_back
        elif _dispatch(name):
            # handle_torch_function, then the public function that called it: the mode
            # calls that same function again, so this outer copy is the inserted one.
            while f is not None and _dispatch(f.f_code.co_filename):
                f = f.f_back
            f = f.f_back if f is not None else None
        else:
            return f
    return None


def relocate(msg: warnings.WarningMessage, start: FrameType | None) -> None:
    """Point `msg` at the user's frame when it names one of graddoctor's frames."""
    if not msg.filename or not _ours(msg.filename):
        return
    f = start
    while f is not None and not (f.f_code.co_filename == msg.filename and f.f_lineno == msg.lineno):
        f = f.f_back
    if f is None:
        return
    target = _caller_outside(f)
    if target is not None:
        msg.filename = target.f_code.co_filename
        msg.lineno = target.f_lineno
        msg.line = None  # read again from the new place


def make_show(original: Callable) -> Callable:
    """The wrapper for `warnings._showwarnmsg` (installed with the session's other patches)."""

    def _showwarnmsg(msg):
        try:
            relocate(msg, sys._getframe(1))
        except Exception:  # never lose the user's warning over our bookkeeping
            pass
        return original(msg)

    return _showwarnmsg
