"""Which cuts lie behind each live tensor: the taint table of deep mode's recorder.

A tensor's taint is the frozenset of the ids of the cuts (records.Cut) its value went
through. The table holds the tensors weakly (by id, with a weak reference to check the
id is still theirs), so it keeps no tensor alive; it is pruned every few thousand inserts.
"""

from __future__ import annotations

import weakref

import torch

Tensor = torch.Tensor
_PRUNE_EVERY = 4096


class TaintTable:
    def __init__(self) -> None:
        # read directly by the recorder's scan loop (a dictionary read per tensor argument);
        # replaced, not mutated, when pruned: read it again after `set`
        self.table: dict[int, tuple[weakref.ref, frozenset]] = {}
        self._inserts = 0

    def get(self, tensor: Tensor) -> frozenset:
        seen = self.table.get(id(tensor))
        return seen[1] if seen is not None and seen[0]() is tensor else frozenset()

    def set(self, tensor: Tensor, taint: frozenset) -> None:
        self.table[id(tensor)] = (weakref.ref(tensor), taint)
        self._inserts += 1
        if self._inserts >= _PRUNE_EVERY:
            self._inserts = 0
            self.table = {k: v for k, v in self.table.items() if v[0]() is not None}

    def drop(self, tensor: Tensor) -> None:
        self.table.pop(id(tensor), None)
