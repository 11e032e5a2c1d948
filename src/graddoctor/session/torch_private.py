"""Every use of torch's private API, in one place, each with a guard for the torch at hand.

graddoctor reads and edits a few of torch's internals: the torch-function mode
stack (`torch._C`), dynamo's per-context enter/exit hooks and its list of
folders it never traces (`torch._dynamo`). None of them is a public contract,
so each function here checks that the internal it needs is there and has the
shape we know; when it is not, it does nothing, answers "absent", and says why
in `missing()` (a session copies that into `internal_errors`), rather than
failing the user's script.
"""

from __future__ import annotations

import sys
from typing import Any

import torch
from torch.nn.modules import module as _module

_missing: list[str] = []  # what this torch lacks, said once each


def missing() -> list[str]:
    """Why an internal graddoctor uses was left alone on this torch (empty on the torch we know)."""
    return list(_missing)


def _absent(what: str) -> None:
    message = f"torch {torch.__version__}: {what}; graddoctor works without it"
    if message not in _missing:
        _missing.append(message)


# --- the torch-function mode stack ------------------------------------------------------------

_C = torch._C
_HAS_MODE_STACK = all(hasattr(_C, name) for name in (
    "_len_torch_function_stack", "_pop_torch_function_stack", "_push_on_torch_function_stack"))


def function_mode_count() -> int:
    """How many TorchFunctionModes are entered on this thread (0 on a torch without the stack API)."""
    if not _HAS_MODE_STACK:
        _absent("no torch-function mode stack API (torch._C._len_torch_function_stack)")
        return 0
    return _C._len_torch_function_stack()


def function_modes() -> list[Any]:
    """The entered TorchFunctionModes, innermost last, without taking them off."""
    from torch.overrides import _get_current_function_mode_stack

    return list(_get_current_function_mode_stack())


def pop_function_mode() -> Any:
    return _C._pop_torch_function_stack()


def push_function_mode(mode: Any) -> None:
    _C._push_on_torch_function_stack(mode)


# --- global module hooks -------------------------------------------------------------------------

def global_forward_hook_dicts() -> tuple[dict, ...]:
    """The dicts behind `register_module_forward_hook` and `..._pre_hook` (compiled code runs
    without ours: torch offers no way to list or lift them for a moment)."""
    return tuple(d for d in (getattr(_module, "_global_forward_hooks", None),
                             getattr(_module, "_global_forward_pre_hooks", None)) if isinstance(d, dict))


# --- dynamo -------------------------------------------------------------------------------------


def dynamo_imported() -> bool:
    """Whether the user's process has imported dynamo (importing it ourselves costs seconds)."""
    return "torch._dynamo.eval_frame" in sys.modules


def dynamo_context_class() -> type | None:
    """Dynamo's context class, whose `enter_exit_hooks` run at every compiled call, or None when
    this torch has no dynamo or already defines that attribute on the class (not the torch we know)."""
    try:
        from torch._dynamo.eval_frame import _TorchDynamoContext
    except (ImportError, RuntimeError):  # a torch without dynamo (or whose dynamo refuses this Python)
        _absent("no torch._dynamo.eval_frame._TorchDynamoContext")
        return None
    if "enter_exit_hooks" in vars(_TorchDynamoContext):
        _absent("_TorchDynamoContext.enter_exit_hooks is a class attribute")
        return None
    return _TorchDynamoContext


def add_skip_dirs(paths: list[str]) -> list[str]:
    """Add `paths` to dynamo's folders it never traces; returns those added (for `remove_skip_dirs`)."""
    try:
        from torch._dynamo import trace_rules
    except (ImportError, RuntimeError):  # as in dynamo_context_class
        _absent("no torch._dynamo.trace_rules")
        return []
    dirs = getattr(trace_rules, "SKIP_DIRS", None)
    recompile = getattr(trace_rules, "_recompile_re", None)
    if not isinstance(dirs, list) or recompile is None:
        _absent("trace_rules.SKIP_DIRS is not a list with _recompile_re")
        return []
    added = [p for p in paths if p not in dirs]
    if added:
        dirs.extend(added)
        _recompile(trace_rules)
    return added


# tuple(SKIP_DIRS) -> the SKIP_DIRS_RE torch compiled from it. Every session's attach adds graddoctor's
# folders and its detach takes them out again, and `_recompile_re` normalises every path of the list
# each time (a pathlib object per entry, about half of an attach's cost): the two lists recur, so their
# patterns are kept. The pattern is a function of the list alone.
_skip_patterns: dict[tuple, Any] = {}


def _recompile(trace_rules) -> None:
    key = tuple(trace_rules.SKIP_DIRS)
    found = _skip_patterns.get(key)
    if found is not None and hasattr(trace_rules, "SKIP_DIRS_RE"):
        trace_rules.SKIP_DIRS_RE = found
        return
    trace_rules._recompile_re()
    if len(_skip_patterns) > 8:  # a list that keeps changing (another tool adding folders): keep memory flat
        _skip_patterns.clear()
    made = getattr(trace_rules, "SKIP_DIRS_RE", None)
    if made is not None:
        _skip_patterns[key] = made


def remove_skip_dirs(added: list[str]) -> None:
    """Take out of dynamo's skip list what `add_skip_dirs` put in (dynamo reads it at trace time)."""
    if not added:
        return
    from torch._dynamo import trace_rules

    dirs = trace_rules.SKIP_DIRS
    for path in added:
        while path in dirs:
            dirs.remove(path)
    _recompile(trace_rules)


def skip_dirs() -> list[str] | None:
    """A copy of dynamo's skip list, or None when dynamo is not imported (for tests and checks)."""
    trace_rules = sys.modules.get("torch._dynamo.trace_rules")
    dirs = getattr(trace_rules, "SKIP_DIRS", None)
    return list(dirs) if isinstance(dirs, list) else None
