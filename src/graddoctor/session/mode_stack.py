"""Reading and editing the torch-function mode stack, for the observers that push modes.

A mode of ours must come off the stack even when the user entered a mode of
their own after it and is still inside it (`__exit__` would pop theirs), and
compiled code must run with ours off and theirs on. Both take the stack apart
and put it back together; this is the one place that does it.
"""

from __future__ import annotations

from typing import Any

from graddoctor.session import torch_private


def function_modes() -> list[Any]:
    """The entered TorchFunctionModes, innermost last."""
    return torch_private.function_modes()


def on_top(mode: Any) -> bool:
    """Whether `mode` is the innermost mode entered."""
    modes = function_modes()
    return bool(modes) and modes[-1] is mode


def take_all() -> list[Any]:
    """Pop every mode off the stack; returns them innermost last (for `put_back`)."""
    return [torch_private.pop_function_mode() for _ in range(torch_private.function_mode_count())][::-1]


def put_back(modes: list[Any]) -> None:
    """Push `modes` (innermost last) onto the stack."""
    for mode in modes:
        torch_private.push_function_mode(mode)


def remove(mode: Any) -> bool:
    """Take `mode` off the stack, leaving the modes entered after it in place; whether it was there."""
    above = []
    found = False
    try:
        while torch_private.function_mode_count() > 0:
            top = torch_private.pop_function_mode()
            if top is mode:
                found = True
                break
            above.append(top)
    finally:
        put_back(above[::-1])
    return found


def leave(mode: Any) -> None:
    """Exit `mode` (its own `__exit__` runs), also when modes entered after it are still on the stack."""
    above = []
    try:
        while torch_private.function_mode_count() > 0 and not on_top(mode):
            above.append(torch_private.pop_function_mode())
        if on_top(mode):
            mode.__exit__(None, None, None)
    finally:
        put_back(above[::-1])
