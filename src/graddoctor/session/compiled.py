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

import os
import sys

import torch
from torch.nn.modules import module as _module

from graddoctor.session.patches import Patcher

# Set on a TorchFunctionMode class, or on the object a global module hook is a method of.
HIDDEN = "_graddoctor_hidden_when_compiled"

calls = 0  # compiled calls made while installed: what deep mode could not see
_patchers: list[Any] = []  # session.patches.Patcher whose replacements compiled code must not see
_touched: list[list] = []  # hook lists we appended to, to take our hook out again
_context_class: Any = None
_deferred = Patcher()  # torch.compile, wrapped while dynamo is not imported yet


def is_ours(obj: Any) -> bool:
    """A hook or mode of graddoctor's (marked with HIDDEN, itself or the object it is a method of)."""
    return bool(getattr(getattr(obj, "__self__", obj), HIDDEN, False))


def _hide() -> Callable[[], None]:
    """Dynamo's enter hook: take our modes and hooks off; returns what puts them back."""
    global calls
    calls += 1
    stack = [torch._C._pop_torch_function_stack() for _ in range(torch._C._len_torch_function_stack())][::-1]
    kept = [m for m in stack if not is_ours(m)]
    for mode in kept:
        torch._C._push_on_torch_function_stack(mode)
    hook_dicts = (_module._global_forward_hooks, _module._global_forward_pre_hooks)
    saved = [list(d.items()) for d in hook_dicts]
    for d in hook_dicts:
        for key in [k for k, hook in d.items() if is_ours(hook)]:
            del d[key]
    swap_ins = [patcher.swap_out() for patcher in _patchers if patcher.active]
    if not swap_ins and len(kept) == len(stack) and all(len(d) == len(s) for d, s in zip(hook_dicts, saved)):
        return _nothing

    def show() -> None:
        for swap_in in swap_ins:
            swap_in()
        now = [torch._C._pop_torch_function_stack() for _ in range(torch._C._len_torch_function_stack())][::-1]
        # The compiled code left the stack as it found it (the usual case): restore the exact order.
        # Otherwise keep what it did and put ours back on top.
        restored = stack if now == kept else now + [m for m in stack if is_ours(m)]
        for mode in restored:
            torch._C._push_on_torch_function_stack(mode)
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


def hide_patches(patcher: Any) -> None:
    """Compiled code sees the originals of what `patcher` replaced (dynamo guards on the functions
    it calls: a loss function replaced after compiling would recompile the model)."""
    if patcher not in _patchers:
        _patchers.append(patcher)


def install() -> None:
    """Hide graddoctor from compiled code until `uninstall()`.

    Importing dynamo costs seconds: when the user has not imported it yet, the hook goes in
    at their first `torch.compile` call (`model.compile()` calls it too) instead.
    """
    global calls
    calls = 0
    if "torch._dynamo.eval_frame" in sys.modules:
        _install_hook()
        return

    def make(original):
        def compile(*args, **kwargs):
            _install_hook()
            return original(*args, **kwargs)
        return compile

    _deferred.wrap(torch, "compile", make)


def _install_hook() -> None:
    global _context_class
    if _context_class is not None:
        return
    try:
        from torch._dynamo.eval_frame import _TorchDynamoContext
    except (ImportError, RuntimeError):  # a torch without dynamo (or whose dynamo refuses this Python)
        return  # compiles nothing
    if "enter_exit_hooks" in vars(_TorchDynamoContext):
        return  # not the torch we know: leave dynamo alone rather than guess
    _TorchDynamoContext.enter_exit_hooks = _WithOurHook()
    _context_class = _TorchDynamoContext
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
    try:
        from torch._dynamo import trace_rules
    except (ImportError, RuntimeError):  # as in _install_hook
        return
    dirs = getattr(trace_rules, "SKIP_DIRS", None)
    recompile = getattr(trace_rules, "_recompile_re", None)
    if not isinstance(dirs, list) or recompile is None:
        return  # not the torch we know
    added = [p for p in _own_paths() if p not in dirs]
    if added:
        dirs.extend(added)
        recompile()


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
    global _context_class
    _deferred.restore()
    if _context_class is None:
        return
    try:
        del _context_class.enter_exit_hooks
    finally:
        _context_class = None
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
