"""Every replacement graddoctor makes in torch (and the standard library), declared in one place.

A part of graddoctor that needs to see a call (`dispatch` the training loop's
calls, `lossdata` the loss functions, deep mode `torch.from_numpy`, ...)
declares a `Patch` under its owner name: the target object, the attribute,
and the factory that makes the wrapper from what it replaces. It then
`attach`es a user (a session, a listener) to that owner while it needs the
patches, and `detach`es it after. An owner's patches are in place while it
has a user; an attribute is replaced once, however many owners declared it:
the wrapper installed is the factories of the active owners composed over the
original, made again when an owner comes or goes. When the last owner of an
attribute detaches, the object that was there before is put back, in whatever
order the users attach and detach.

The original is looked up in the target's own `__dict__`, so an inherited
method is restored by deleting the override rather than by copying the
parent's onto the child. Patches marked `hidden_when_compiled` are taken off
while compiled code runs (session/compiled.py): dynamo guards on the
functions it calls.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_MISSING = object()


@dataclass(frozen=True)
class Patch:
    owner: str  # who wants it: the part of graddoctor that attaches and detaches it
    target: Any
    attr: str
    make: Callable[[Any], Any]  # the replacement, from the original (None when there is none)
    hidden_when_compiled: bool = False


@dataclass(eq=False)
class _Slot:
    """One replaced attribute: what was there, and the patches now composed over it."""

    target: Any
    attr: str
    own: Any  # the target's own `__dict__` entry before, or _MISSING
    original: Any  # what `getattr` gave before (inherited included), or _MISSING
    patches: list[Patch] = field(default_factory=list)
    visible: Any = _MISSING  # what compiled code sees: the original under the non-hidden patches


@dataclass(eq=False)
class _Owner:
    patches: list[Patch] = field(default_factory=list)
    users: list[Any] = field(default_factory=list)
    starts: list[Callable[[], None]] = field(default_factory=list)
    stops: list[Callable[[], None]] = field(default_factory=list)


_owners: dict[str, _Owner] = {}
_slots: dict[tuple[int, str], _Slot] = {}
_hidden: list[_Slot] = []  # installed slots with a patch compiled code must not see


def declare(owner: str, target: Any, attr: str, make: Callable[[Any], Any], *,
            hidden_when_compiled: bool = False) -> None:
    """Declare that `owner` replaces `target.attr` by `make(original)` while it has users.

    Declaring the same owner, target and attribute again replaces the declaration (it takes
    effect at the owner's next first attach).
    """
    raw = target.__dict__.get(attr, _MISSING) if hasattr(target, "__dict__") else _MISSING
    if isinstance(raw, (staticmethod, classmethod)):
        raise TypeError(f"cannot wrap {target!r}.{attr}: static/class methods are not supported")
    entry = _owners.setdefault(owner, _Owner())
    patch = Patch(owner, target, attr, make, hidden_when_compiled)
    entry.patches = [p for p in entry.patches if not (p.target is target and p.attr == attr)] + [patch]


def on_attach(owner: str, start: Callable[[], None], stop: Callable[[], None]) -> None:
    """Also run `start` after the owner's patches go in (first user), `stop` before they come out
    (last user): for what is not an attribute (torch's global hook registrations)."""
    entry = _owners.setdefault(owner, _Owner())
    entry.starts.append(start)
    entry.stops.append(stop)


def attach(owner: str, user: Any) -> None:
    """`user` needs `owner`'s patches: they go in with its first user. Attaching twice is once."""
    entry = _owners.setdefault(owner, _Owner())
    if any(u is user for u in entry.users):
        return
    if entry.users:
        entry.users.append(user)
        return
    done: list[Patch] = []
    try:
        for patch in entry.patches:
            _add(patch)
            done.append(patch)
        entry.users.append(user)
        for start in entry.starts:
            start()
    except BaseException:
        entry.users.clear()
        try:
            for stop in entry.stops:
                stop()
        finally:
            for patch in reversed(done):
                _remove(patch)
        raise


def detach(owner: str, user: Any) -> None:
    """`user` is done with `owner`'s patches: they come out with its last user. Safe to call twice."""
    entry = _owners.get(owner)
    if entry is None or not any(u is user for u in entry.users):
        return
    entry.users = [u for u in entry.users if u is not user]
    if entry.users:
        return
    try:
        for stop in entry.stops:
            stop()
    finally:
        for slot in list(_slots.values()):
            for patch in [p for p in slot.patches if p.owner == owner]:
                _remove(patch)


def forget(owner: str) -> None:
    """Drop `owner`'s declarations (an owner made for a test); refused while it has users."""
    if active(owner):
        raise RuntimeError(f"{owner!r} has users: detach them first")
    _owners.pop(owner, None)


def active(owner: str) -> bool:
    """Whether `owner` has a user (its patches are in place)."""
    entry = _owners.get(owner)
    return bool(entry and entry.users)


def declared() -> list[Patch]:
    """Every patch declared so far, by owner (the restore test walks these)."""
    return [patch for entry in _owners.values() for patch in entry.patches]


def installed() -> list[tuple[Any, str]]:
    """The attributes replaced now."""
    return [(slot.target, slot.attr) for slot in _slots.values()]


def swap_out_hidden() -> Callable[[], None] | None:
    """Show compiled code what lies under the hidden patches; returns what puts them back
    (None when nothing is hidden: the hot path of every compiled call)."""
    if not _hidden:
        return None
    swapped = [(slot, getattr(slot.target, slot.attr)) for slot in _hidden]
    for slot, _ in swapped:
        setattr(slot.target, slot.attr, slot.visible)

    def swap_in() -> None:
        for slot, wrapper in swapped:
            setattr(slot.target, slot.attr, wrapper)

    return swap_in


# --- composing the patches of one attribute ---------------------------------------------------


def _add(patch: Patch) -> None:
    key = (id(patch.target), patch.attr)
    slot = _slots.get(key)
    if slot is None:
        target, attr = patch.target, patch.attr
        own = target.__dict__.get(attr, _MISSING) if hasattr(target, "__dict__") else _MISSING
        slot = _Slot(target, attr, own, getattr(target, attr, _MISSING))
        _slots[key] = slot
    slot.patches.append(patch)
    try:
        _compose(slot)
    except BaseException:
        slot.patches.remove(patch)
        _compose(slot)
        raise


def _remove(patch: Patch) -> None:
    slot = _slots[(id(patch.target), patch.attr)]
    slot.patches.remove(patch)
    _compose(slot)


def _compose(slot: _Slot) -> None:
    """Install the slot's patches over its original, or put the original back when none is left.
    The patches compiled code may see go innermost, so that it can be shown them alone."""
    if slot in _hidden:
        _hidden.remove(slot)
    if not slot.patches:
        del _slots[(id(slot.target), slot.attr)]
        if slot.own is _MISSING:
            try:
                delattr(slot.target, slot.attr)
            except AttributeError:
                pass
        else:
            setattr(slot.target, slot.attr, slot.own)
        return
    layer = slot.original
    ordered = sorted(slot.patches, key=lambda p: p.hidden_when_compiled)  # stable: declaration order kept
    visible = slot.original
    for patch in ordered:
        layer = _wrap(patch, layer)
        if not patch.hidden_when_compiled:
            visible = layer
    slot.visible = visible
    setattr(slot.target, slot.attr, layer)
    if any(p.hidden_when_compiled for p in slot.patches):
        _hidden.append(slot)


def _wrap(patch: Patch, inner: Any) -> Any:
    wrapper = patch.make(None if inner is _MISSING else inner)
    if inner is not _MISSING and callable(inner) and callable(wrapper):
        functools.update_wrapper(wrapper, inner)
        wrapper.__graddoctor_original__ = inner
    return wrapper
