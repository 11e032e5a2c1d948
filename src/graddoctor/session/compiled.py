"""Compiled code runs as if graddoctor were not there.

Dynamo traces whatever is active when a `torch.compile`d function is called. A
TorchFunctionMode on the stack is traced into the graph (graddoctor's
bookkeeping reads `grad_fn` and calls `sys._getframe`: graph breaks, and a
warning), and the mode stack and the global module hooks are part of dynamo's
guards, so pushing or popping one recompiles. Either would change how the
user's model runs.

While a session is attached, every dynamo context (also those made before)
gets one more enter/exit hook: on entry it takes graddoctor's own function
modes and global module hooks off, on exit it puts them back where they were.
The price: deep mode and GD207's sampling do not see inside compiled code
(docs/integrations.md says so; `calls` lets a report say it when it matters).

Dynamo's hook list is per context (`_TorchDynamoContext.enter_exit_hooks`, read
at every call), so ours is added by a data descriptor on the class: it wins
over the instance attribute, and appends our hook to the instance's own list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import importlib.abc
import os
import sys

import torch

from graddoctor.internal import record_internal_error
from graddoctor.session import instrumentation, mode_stack, torch_private

# Set on a TorchFunctionMode class, or on the object a global module hook is a method of.
HIDDEN = "_graddoctor_hidden_when_compiled"

calls = 0  # compiled calls made while installed: what deep mode could not see
_touched: list[list] = []  # hook lists we appended to, to take our hook out again
_skipped: list[str] = []  # what we added to dynamo's SKIP_DIRS, taken out again at uninstall
DEFERRED = "torch.compile, until dynamo is imported"  # instrumentation owners
HOOKED = "dynamo's enter/exit hooks"
_USER = "compiled"


def is_ours(obj: Any) -> bool:
    """A hook or mode of graddoctor's (marked with HIDDEN, itself or the object it is a method of)."""
    return bool(getattr(getattr(obj, "__self__", obj), HIDDEN, False))


def _hide() -> Callable[[], None]:
    """Dynamo's enter hook: take our modes and hooks off; returns what puts them back."""
    global calls
    calls += 1
    stack = mode_stack.take_all()
    kept = [m for m in stack if not is_ours(m)]
    mode_stack.put_back(kept)
    hook_dicts = torch_private.global_forward_hook_dicts()
    saved = [list(d.items()) for d in hook_dicts]
    for d in hook_dicts:
        for key in [k for k, hook in d.items() if is_ours(hook)]:
            del d[key]
    swap_in = instrumentation.swap_out_hidden()
    if swap_in is None and len(kept) == len(stack) and all(len(d) == len(s) for d, s in zip(hook_dicts, saved)):
        return _nothing

    def show() -> None:
        if swap_in is not None:
            swap_in()
        now = mode_stack.take_all()
        # The compiled code left the stack as it found it (the usual case): restore the exact order.
        # Otherwise keep what it did and put ours back on top.
        mode_stack.put_back(stack if now == kept else now + [m for m in stack if is_ours(m)])
        for d, items in zip(hook_dicts, saved):
            if list(d) == [k for k, hook in items if not is_ours(hook)]:
                d.clear()
                d.update(items)
            else:
                d.update((k, hook) for k, hook in items if is_ours(hook))

    return show


def _nothing() -> None:
    pass


class _WithOurHook:
    """`enter_exit_hooks` of every dynamo context, with `_hide` appended once."""

    def __get__(self, ctx: Any, owner: type | None = None) -> Any:
        if ctx is None:
            return self
        hooks = ctx.__dict__.setdefault("enter_exit_hooks", [])
        if _hide not in hooks:
            hooks.append(_hide)
            _touched.append(hooks)
        return hooks

    def __set__(self, ctx: Any, value: list) -> None:
        ctx.__dict__["enter_exit_hooks"] = value


def install(sessions: Callable[[], list] = list) -> None:
    """Hide graddoctor from compiled code until `uninstall()`.

    Importing dynamo costs seconds: when the user has not imported it yet, the hook goes in
    at their first `torch.compile` call (`model.compile()` calls it too) instead. `sessions`
    gives the attached sessions, which hear of our own failures.
    """
    global calls, _sessions
    calls = 0
    _sessions = sessions
    if torch_private.dynamo_imported():
        _install_hook()
    else:
        instrumentation.attach(DEFERRED, _USER)
        # `torch._dynamo.optimize(...)(train)` and `import torch._dynamo` reach dynamo without
        # `torch.compile`: the hook goes in as soon as dynamo's import finishes.
        if not any(isinstance(f, _AfterDynamoImport) for f in sys.meta_path):
            sys.meta_path.insert(0, _AfterDynamoImport())


class _AfterDynamoImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: it lets the other finders find `torch._dynamo` and runs `_install_hook`
    once the whole package has run (its context class and skip lists are complete only then)."""

    def find_spec(self, name, path, target=None):
        if name != _DYNAMO_PACKAGE:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _InstallingLoader(spec.loader)
                return spec
            if spec is not None:
                return None
        return None


class _InstallingLoader(importlib.abc.Loader):
    def __init__(self, loader) -> None:
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        _remove_import_hook()
        if instrumentation.active(DEFERRED):  # a session is still attached
            try:
                _install_hook()
            except Exception:  # never let ours break the user's import
                record_internal_error(_sessions(), "hiding graddoctor from dynamo after its import")

    def __getattr__(self, name):
        return getattr(self.loader, name)


_DYNAMO_PACKAGE = "torch._dynamo"
_sessions: Callable[[], list] = list


def _remove_import_hook() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _AfterDynamoImport)]


def _compile_installing_hook(original):
    def compile(*args, **kwargs):
        _install_hook()
        return original(*args, **kwargs)
    return compile


instrumentation.declare(DEFERRED, torch, "compile", _compile_installing_hook)


def _install_hook() -> None:
    if instrumentation.active(HOOKED):
        return
    context_class = torch_private.dynamo_context_class()
    if context_class is None:
        return
    instrumentation.declare(HOOKED, context_class, "enter_exit_hooks", lambda _absent: _WithOurHook())
    instrumentation.attach(HOOKED, _USER)
    _never_traced()


def _never_traced() -> None:
    """Dynamo runs graddoctor's own functions as plain Python, never traces them.

    A compiled training step calls `loss.backward()` and `optimizer.step()`, which are
    graddoctor's wrappers while a session is attached. Traced, their bookkeeping
    (`gc.get_objects`, `sys._getframe`, weak references) breaks dynamo's tracer and would
    turn into an error in the user's step. Skipped, dynamo breaks the graph at the call
    and runs the wrapper eagerly, as it does for any function it cannot trace; the
    wrapper then calls the original, so the step computes what it would without us.
    The demo programs live in the package (beside their rules) but are user code: it stays traceable.
    """
    _skipped.extend(torch_private.add_skip_dirs(_own_paths()))


_paths: list[str] = []


def _own_paths() -> list[str]:
    """graddoctor's folders and modules as dynamo's SKIP_DIRS lists them: read once per process
    (a session's attach would otherwise stat the package every time)."""
    if not _paths:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        for entry in sorted(os.listdir(package)):
            path = os.path.join(package, entry)
            if entry == "demo":
                _paths.extend(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".py"))
            elif os.path.isdir(path) or entry.endswith(".py"):
                _paths.append(path + os.sep if os.path.isdir(path) else path)
        _paths[:] = [p.replace(os.sep, "/") for p in _paths]
    return _paths


def uninstall() -> None:
    _remove_import_hook()
    try:
        instrumentation.detach(DEFERRED, _USER)
        instrumentation.detach(HOOKED, _USER)
        added, _skipped[:] = list(_skipped), []
        torch_private.remove_skip_dirs(added)
    finally:
        while _touched:
            hooks = _touched.pop()
            while _hide in hooks:
                hooks.remove(_hide)


def add_note(report: Any, session: Any) -> None:
    """Say so in the report when compiled code hid something deep mode would have named:
    deep mode was on, compiled code ran, and a finding is of the kind deep mode explains."""
    deep = any(getattr(o, "_ever_active", False) for o in session.observers)
    if not (deep and calls and any(c.startswith(("GD1", "GD3")) for c in report.codes)):
        return
    report.notes.append(
        f"{calls} call{'s' if calls != 1 else ''} ran torch.compile'd code, which deep mode does not see inside: "
        "a cut, in-place edit or NaN origin inside the compiled model is not named. To name it, run once "
        "without torch.compile (or with torch.compiler.set_stance(\"force_eager\")).")
