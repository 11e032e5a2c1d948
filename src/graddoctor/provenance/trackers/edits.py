"""In-place edits of tensors autograd needs, and writes through `.data`.

An in-place op on a tensor that requires grad is recorded when it bumped the tensor's
version (what autograd's "modified by an inplace operation" error is about); an edit of
a tensor obtained through `.data` is a write to the parameter behind it.
"""

from __future__ import annotations

import weakref
from collections import deque

import torch

from graddoctor.provenance.frames import user_chain
from graddoctor.provenance.records import DataWrite, InplaceEdit

Tensor = torch.Tensor


class EditTracker:
    def __init__(self) -> None:
        self.inplace: deque[InplaceEdit] = deque(maxlen=2048)  # optimizer steps add one per parameter
        self.data_writes: list[DataWrite] = []
        self._data_of: dict[int, tuple[weakref.ref, int]] = {}  # `.data` result id -> its parameter's id

    def before(self, target: Tensor):
        """What to compare after an in-place op on `target`, or None when it is not watched."""
        if not target.requires_grad and id(target) not in self._data_of:
            return None
        producer = type(target.grad_fn).__name__ if target.grad_fn is not None else None
        return (target._version, producer, target.grad_fn is None and target.requires_grad)

    def after(self, target: Tensor, pre, func, frame, forward_seen: bool, used: set[int], step: int) -> None:
        version, producer, leaf = pre
        name = getattr(func, "__name__", "in-place op")
        source = self._data_of.get(id(target))
        if source is not None and source[0]() is target:
            self.data_write(source[1], name, frame, forward_seen, used, step)
            return
        if target._version == version:
            return
        chain = user_chain(frame)
        if not chain:
            return
        self.inplace.append(
            InplaceEdit(
                name, chain[0], chain, tuple(target.shape), version, target._version, producer, leaf, step,
                type(target.grad_fn).__name__ if target.grad_fn is not None else None,
                param_id=id(target) if leaf else None,
            )
        )

    def data_read(self, out: Tensor, param: Tensor) -> None:
        """`out` is `param.data`: an edit of it is a write to `param`."""
        if len(self._data_of) > 4096:
            self._data_of = {k: v for k, v in self._data_of.items() if v[0]() is not None}
        self._data_of[id(out)] = (weakref.ref(out), id(param))

    def data_write(self, param_id: int, op: str, frame, forward_seen: bool, used: set[int], step: int) -> None:
        chain = user_chain(frame, limit=1)
        if chain and len(self.data_writes) < 1024:  # judged and cleared at each backward
            # Only an edit after a recorded op used the tensor leaves that graph with stale values.
            after = forward_seen and param_id in used
            self.data_writes.append(DataWrite(param_id, op, chain[0], after, step))
