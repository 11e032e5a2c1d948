"""Where a NaN/Inf is made: the first op of an escalated window whose result is non-finite.

Only while `watch` is on (asked for after a NaN/Inf was seen): one fused isfinite check
per op result until the first op that made a non-finite value, then off again.
"""

from __future__ import annotations

import math
import os

import torch

from graddoctor.graph.readable import has_values
from graddoctor.locate import Location
from graddoctor.provenance.frames import user_chain
from graddoctor.provenance.records import NanOrigin

Tensor = torch.Tensor
# Uninitialised memory holds whatever was there: a NaN in it is no op's doing (SPEC section 5).
_UNINITIALISED = {"empty", "new_empty", "empty_like", "empty_strided", "new_empty_strided"}
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
_NOT_TRAINING_DIRS = (os.path.join(_TORCH_DIR, "optim") + os.sep,)
_INIT_FILE = os.path.join(_TORCH_DIR, "nn", "init.py")


class NonFiniteTracker:
    def __init__(self) -> None:
        self.watch = False
        self.origin: NanOrigin | None = None
        self.inherited: Location | None = None  # the first non-finite result came from non-finite inputs

    def check(self, func, args, kwargs, out, frame, step: int) -> None:
        if getattr(func, "__name__", "") in _UNINITIALISED:
            return
        bad = _first_non_finite(out if type(out) in (tuple, list) else (out,))
        if bad is None or _outside_training_pass(frame):
            return
        values = [t for group in (args, kwargs.values()) for a in group
                  for t in (a if type(a) in (list, tuple) else (a,))]
        if any(type(v) is float and not math.isfinite(v) for v in values):
            return  # asked for by value (`masked_fill(mask, float("-inf"))` in attention): no accident
        self.watch = False  # one answer per window: what follows the first hit only inherits it
        chain = user_chain(frame)
        inputs = [t for t in values if isinstance(t, Tensor)]
        if _first_non_finite(inputs) is not None:
            # The values came in non-finite (weights an earlier NaN step already wrote, or the
            # data): this op did not make them, and no op of this forward pass did.
            self.inherited = chain[0] if chain else None
            return
        name = getattr(func, "__name__", str(func)).strip("_")
        self.origin = NanOrigin(name, chain[0] if chain else None, chain, step, bad)


def _first_non_finite(tensors) -> str | None:
    """'nan', 'inf' or '-inf' for the first floating tensor holding one, else None (one sync each)."""
    for t in tensors:
        if not has_values(t) or not (t.is_floating_point() or t.is_complex()):
            continue
        try:
            t = t.detach()  # our check records nothing: a checkpointed forward saves what it saved without us
            if bool(torch.isfinite(t).all()):
                continue
            if bool(torch.isnan(t).any()):
                return "nan"
            return "inf" if bool((t == float("inf")).any()) else "-inf"
        except (RuntimeError, NotImplementedError, TypeError):  # a subclass or layout without these kernels
            continue
    return None


def _outside_training_pass(frame) -> bool:
    """Whether an op runs while parameters are built or initialised, or inside an optimizer.

    Those values are not the forward pass or the loss: a NaN there is not the user's op
    making one (and a module's constructor fills what `empty` left before anyone reads it).
    """
    from torch import nn

    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(_NOT_TRAINING_DIRS) or filename == _INIT_FILE:
            return True
        if frame.f_code.co_name == "__init__" and isinstance(frame.f_locals.get("self"), nn.Module):
            return True
        frame = frame.f_back
    return False
