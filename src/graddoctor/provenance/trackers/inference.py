"""Inference tensors: where each was made, for when autograd later refuses one.

A tensor made inside the user's `inference_mode()` cannot be saved for backward; when an
op fails with torch's "Inference tensors" error, the tensor's birth names the block.
"""

from __future__ import annotations

import weakref

import torch

from graddoctor.locate import Location
from graddoctor.provenance.frames import Region, user_chain
from graddoctor.provenance.records import InferenceBirth

Tensor = torch.Tensor


class InferenceTracker:
    def __init__(self) -> None:
        self.births: dict[int, tuple[weakref.ref, InferenceBirth]] = {}
        self.failure: tuple[InferenceBirth | None, Location] | None = None

    def birth(self, out: Tensor, region: Region, frame) -> None:
        if not region.user:
            return
        chain = user_chain(frame, limit=1)
        birth = InferenceBirth(chain[0] if chain else None, region.entry, tuple(out.shape))
        if len(self.births) > 4096:
            self.births = {k: v for k, v in self.births.items() if v[0]() is not None}
        self.births[id(out)] = (weakref.ref(out), birth)

    def failed(self, args, exc: RuntimeError, frame) -> None:
        """An op called from `frame` raised `exc`: note the inference tensor it refused, if that was it."""
        if "Inference tensors" not in str(exc) and "inference tensor" not in str(exc):
            return
        where = user_chain(frame, limit=1)
        for a in args:
            items = a if type(a) in (list, tuple) else (a,)
            for t in items:
                if isinstance(t, Tensor) and t.is_inference():
                    seen = self.births.get(id(t))
                    birth = seen[1] if seen is not None and seen[0]() is t else None
                    self.failure = (birth, where[0] if where else Location(None, None))
                    return
