"""Where in the user's code: find the user's frame, and print paths as they know them.

A frame is the user's when its file is neither torch, the standard library,
an installed package, a framework imported from a checkout (accelerate,
transformers, lightning...), nor graddoctor itself. Scripts passed to `graddoctor run`
are always the user's, even when they live inside a virtual environment.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
import sysconfig
import traceback
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Callable

from graddoctor.rules.parts import is_demo_program

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _library_dirs() -> tuple[str, ...]:
    dirs = set()
    # "scripts" holds console-script launchers (the `graddoctor` command itself).
    for key in ("stdlib", "platstdlib", "purelib", "platlib", "scripts"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(os.path.realpath(path))
    for path in sys.path:
        if path.endswith(("site-packages", "dist-packages")):
            dirs.add(os.path.realpath(path))
    return tuple(sorted(dirs, key=len, reverse=True))


_LIBRARY_DIRS = _library_dirs()
_FOREIGN_LIBRARY = re.compile(r"/(site|dist)-packages/|/lib/python\d\.\d+/|/lib/pypy")
_user_files: set[str] = set()  # scripts handed to `graddoctor run`
_verdicts: dict[str, bool] = {}
_namers: list[Callable[[str], str | None]] = []  # e.g. a notebook's: cell file -> "Cell In[3]"
_named: dict[str, str] = {}  # a name shown by a namer -> the file it stands for


def declare_user_file(path: str) -> None:
    """Treat `path` as user code whatever directory it is in."""
    _user_files.add(os.path.realpath(path))
    _verdicts.clear()


def is_user_file(filename: str | None) -> bool:
    if not filename:
        return False
    verdict = _verdicts.get(filename)
    if verdict is None:
        verdict = _judge(filename)
        _verdicts[filename] = verdict
    return verdict


def _judge(filename: str) -> bool:
    if filename.startswith("<"):
        # <stdin>, <string> and notebook cells are user code; <frozen ...> is not.
        return not filename.startswith(("<frozen", "<__array_function__"))
    real = os.path.realpath(filename)
    if real in _user_files:
        return True
    if real.startswith(_PACKAGE_DIR + os.sep) and not is_demo_program(real):
        return False
    if any(real.startswith(d + os.sep) for d in _LIBRARY_DIRS):
        return False
    if any(real.startswith(d) for d in _framework_dirs()):
        return False
    # Paths from someone else's machine (a pasted traceback) are judged by their shape.
    return _FOREIGN_LIBRARY.search(filename.replace("\\", "/")) is None


# Frameworks that call torch on the user's behalf. Imported from a checkout (PYTHONPATH=src,
# `pip install -e`) they live outside site-packages, yet their frames are never the user's line.
_FRAMEWORKS = ("torch", "accelerate", "transformers", "lightning", "pytorch_lightning", "lightning_fabric",
               "lightning_utilities", "torchmetrics", "deepspeed", "peft", "functorch", "triton")
_framework_found: dict[str, tuple[str, ...]] = {}


def _framework_dirs() -> list[str]:
    """The package directories (with a trailing separator) of the frameworks imported so far."""
    out: list[str] = []
    for name in _FRAMEWORKS:
        dirs = _framework_found.get(name)
        if dirs is None:
            module = sys.modules.get(name)
            if module is None:
                continue
            dirs = _framework_found[name] = tuple(
                os.path.realpath(p) + os.sep for p in getattr(module, "__path__", None) or ())
        out.extend(dirs)
    return out


def name_files(namer: Callable[[str], str | None]) -> None:
    """Show the files `namer` knows by its name for them (a notebook names its cells)."""
    if namer not in _namers:
        _namers.append(namer)


def named_file(name: str) -> str | None:
    """The file a namer showed as `name` (`Cell In[3]` -> IPython's file of that cell), if any."""
    return _named.get(name)


def forget_namer(namer: Callable[[str], str | None]) -> None:
    if namer in _namers:
        _namers.remove(namer)


def display_path(filename: str | None) -> str | None:
    """The path relative to the cwd when it lies below it, else as it is."""
    if filename is None:
        return None
    for namer in _namers:
        name = namer(filename)
        if name is not None:
            _named[name] = filename
            return name
    if filename.startswith("<"):
        return filename
    try:
        rel = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if rel.startswith("..") else rel


@dataclass(frozen=True)
class Location:
    """A place in the user's code."""

    file: str | None
    line: int | None
    column: int | None = None
    function: str | None = None

    @property
    def source(self) -> str:
        if not self.file or not self.line:
            return ""
        return linecache.getline(self.file, self.line).rstrip("\n")

    def shown(self) -> dict:
        """Fields as a Finding takes them (the file shown relative to the cwd)."""
        return {"file": display_path(self.file), "line": self.line, "column": self.column}

    def __str__(self) -> str:
        return f"{display_path(self.file)}:{self.line}"


NOWHERE = Location(None, None)


def user_location(frame: FrameType | None = None) -> Location:
    """The innermost user frame of the current stack (or from `frame` outwards).

    When that frame is one that handed control to a framework (`trainer.fit(model)`),
    the event happened inside the framework's loop, on the user's behalf: the
    integration that registered the frame names the user's line instead
    (see `redirect_entry`).
    """
    start = frame or sys._getframe(1)
    frame = start
    # The hot path of every wrapped call (backward, step, zero_grad, a loss function): the
    # verdict and the Location are dictionary reads, made inline.
    verdicts = _verdicts
    while frame is not None:
        code = frame.f_code
        verdict = verdicts.get(code.co_filename)
        if verdict is None:
            verdict = is_user_file(code.co_filename)
        if verdict:
            for entry, where in _redirects:
                if entry is frame:
                    found = where(start)
                    if found.file:
                        return found
            found = _locations.get((code, frame.f_lasti))
            return found if found is not None else _location_of(frame)
        frame = frame.f_back
    return NOWHERE


# (code object, instruction offset) -> its Location: a training loop asks for the same few call
# sites at every step, and a Location is immutable. Bounded for code made at run time.
_locations: dict[tuple, Location] = {}


def _location_of(frame: FrameType) -> Location:
    key = (frame.f_code, frame.f_lasti)
    found = _locations.get(key)
    if found is None:
        if len(_locations) > 4096:
            _locations.clear()
        code = frame.f_code
        found = _locations[key] = Location(code.co_filename, frame.f_lineno, _column(frame), code.co_name)
    return found


def user_frame(frame: FrameType | None = None) -> FrameType | None:
    """The innermost user frame object, from `frame` (default: the caller) outwards."""
    frame = frame or sys._getframe(1)
    while frame is not None and not is_user_file(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def frame_locals(frame: FrameType) -> dict:
    """A copy of the frame's variables that leaves none of its tensors pinned.

    Before Python 3.13, `f_locals` of a function frame is a snapshot dict that the frame keeps
    until it returns or is read again: the loss, the logits or the batch read there would stay
    alive after the user's own loop rebinds them (a whole batch of logits held into the next
    forward). So the snapshot gives the tensor-holding entries back; the function's variables
    themselves are untouched (every read rebuilds the snapshot from them). Module and class
    frames are never edited: their `f_locals` is the namespace itself.
    """
    snapshot = frame.f_locals
    values = dict(snapshot)
    if sys.version_info < (3, 13) and frame.f_code.co_flags & _CO_OPTIMIZED and snapshot is not frame.f_globals:
        for key, value in values.items():
            if _holds_tensor(value):
                snapshot.pop(key, None)
    return values


_CO_OPTIMIZED = 0x0001  # inspect.CO_OPTIMIZED: a function's frame, whose f_locals is a snapshot


def _holds_tensor(value: object) -> bool:
    """A tensor, or a tuple, list or dict (a batch, a model output, an LSTM's (h, c)) holding one."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    tensor = torch.Tensor
    if isinstance(value, tensor):
        return True
    if isinstance(value, dict):
        items = list(value.values())[:32]
    elif isinstance(value, (tuple, list)):
        items = value[:32]
    else:
        return False
    return any(isinstance(item, tensor) for item in items)


# (entry frame, where) pairs: events whose innermost user frame is `entry` are
# placed by `where(start_frame)`, a Location with file None meaning "no better line".
_redirects: list[tuple[FrameType, Callable[[FrameType], Location]]] = []


class Redirect:
    """A removable registration made by `redirect_entry`."""

    def __init__(self, item: tuple[FrameType, Callable[[FrameType], Location]]) -> None:
        self._item: tuple | None = item

    def remove(self) -> None:
        if self._item is not None:
            try:
                _redirects.remove(self._item)
            except ValueError:
                pass
            self._item = None  # drop the frame reference


def redirect_entry(entry: FrameType, where: Callable[[FrameType], Location]) -> Redirect:
    """While registered, events reached through the user frame `entry` are placed by `where`.

    Frameworks such as Lightning call `backward()` and `optimizer.step()` from
    their own loop, so the innermost user frame is the line that started the
    loop; `where` names the user's hook (e.g. `training_step`) instead.
    """
    item = (entry, where)
    _redirects.append(item)
    return Redirect(item)


# (code object, instruction offset) -> 1-based column. A call site's column never changes, and
# `co_positions()` walks the whole code object: without the cache every event on a module-level
# training loop would pay for the length of the script.
_columns: dict[tuple, int | None] = {}


def _column(frame: FrameType) -> int | None:
    key = (frame.f_code, frame.f_lasti)
    try:
        return _columns[key]
    except KeyError:
        pass
    column = None
    # Python 3.11 keeps exact positions per instruction; the column is 1-based.
    try:
        positions = list(frame.f_code.co_positions())
        index = frame.f_lasti // 2
        if 0 <= index < len(positions):
            col = positions[index][2]
            column = None if col is None else col + 1
    except (AttributeError, ValueError):
        pass
    if len(_columns) > 4096:  # code made at run time (exec, notebooks): keep memory flat
        _columns.clear()
    _columns[key] = column
    return column


def exception_location(exc: BaseException) -> Location:
    """Where the user's exception points: the line a SyntaxError names (its traceback holds
    only the frames that compiled the file), else the innermost user frame that raised."""
    if isinstance(exc, SyntaxError) and exc.lineno and is_user_file(exc.filename):
        return Location(exc.filename, exc.lineno, exc.offset)
    return traceback_user_location(exc.__traceback__)


def traceback_user_location(tb: TracebackType | None) -> Location:
    """The innermost user frame of a traceback (the user's line where it failed)."""
    found = NOWHERE
    for frame, lineno in traceback.walk_tb(tb):
        filename = frame.f_code.co_filename
        if is_user_file(filename):
            found = Location(filename, lineno, None, frame.f_code.co_name)
    return found
