"""Replace functions and methods, and always put the originals back.

Every replacement is recorded with the exact object it displaced (looked up
in the owner's own `__dict__`, so an inherited method is restored by deleting
the override rather than by copying the parent's onto the child).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_MISSING = object()


class Patcher:
    def __init__(self) -> None:
        self._undo: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, attr: str, make: Callable[[Callable], Callable]) -> None:
        """Replace `owner.attr` by `make(original)`."""
        own = owner.__dict__.get(attr, _MISSING) if hasattr(owner, "__dict__") else _MISSING
        original = getattr(owner, attr)
        raw = own if own is not _MISSING else original
        if isinstance(raw, (staticmethod, classmethod)):
            raise TypeError(f"cannot wrap {owner!r}.{attr}: static/class methods are not supported")
        wrapper = make(original)
        functools.update_wrapper(wrapper, original)
        wrapper.__graddoctor_original__ = original  # type: ignore[attr-defined]
        setattr(owner, attr, wrapper)
        self._undo.append((owner, attr, own))

    def restore(self) -> None:
        """Undo every replacement, newest first; safe to call twice."""
        while self._undo:
            owner, attr, own = self._undo.pop()
            if own is _MISSING:
                try:
                    delattr(owner, attr)
                except AttributeError:
                    pass
            else:
                setattr(owner, attr, own)

    def swap_out(self) -> Callable[[], None]:
        """Put the originals back for a moment; returns what puts the replacements back."""
        swapped = []
        for owner, attr, _ in self._undo:
            wrapper = getattr(owner, attr, None)
            original = getattr(wrapper, "__graddoctor_original__", None)
            if original is not None:
                setattr(owner, attr, original)
                swapped.append((owner, attr, wrapper))

        def swap_in() -> None:
            for owner, attr, wrapper in swapped:
                setattr(owner, attr, wrapper)

        return swap_in

    @property
    def active(self) -> bool:
        return bool(self._undo)
