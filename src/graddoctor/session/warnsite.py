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

The filters let the warning through for our frame first (that decision is taken
in C before the hook sees it), so a moved warning is decided again for the
user's line, with the user's module registry: it shows once per user line under
the default filter, as without graddoctor, not once per path through our
wrappers. Known limit: a filter that suppressed it for our frame (`ignore` by
`module=`, or "default" after one showing from the same wrapper line) has
already decided.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from types import FrameType

from graddoctor import locate
from graddoctor.internal import record_internal_error


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


def relocate(msg: warnings.WarningMessage, start: FrameType | None) -> FrameType | None:
    """Point `msg` at the user's frame when it names one of graddoctor's frames; returns that frame."""
    if not msg.filename or not _ours(msg.filename):
        return None
    f = start
    while f is not None and not (f.f_code.co_filename == msg.filename and f.f_lineno == msg.lineno):
        f = f.f_back
    if f is None:
        return None
    target = _caller_outside(f)
    if target is not None:
        msg.filename = target.f_code.co_filename
        msg.lineno = target.f_lineno
        msg.line = None  # read again from the new place
    return target


def make_show(original: Callable, sessions: Callable[[], list]) -> Callable:
    """The wrapper for `warnings._showwarnmsg` (installed with the session's other patches);
    `sessions()` are the sessions a failure of ours is recorded on."""

    def _showwarnmsg(msg):
        try:
            target = relocate(msg, sys._getframe(1))
        except Exception:  # never lose the user's warning over our bookkeeping
            target = None
            record_internal_error(sessions(), "placing a warning at the user's line")
        if target is None:
            return original(msg)
        # The filters already let it through for our frame, whose "once per location" registry
        # is not the user's: the same warning then shows once per path through our wrappers.
        # Decided again for the user's line, it shows as often as under plain Python.
        module_globals = target.f_globals
        registry = module_globals.setdefault("__warningregistry__", {})
        warnings.warn_explicit(msg.message, msg.category, msg.filename, msg.lineno,
                               module=module_globals.get("__name__"), registry=registry,
                               module_globals=module_globals, source=msg.source)

    return _showwarnmsg
