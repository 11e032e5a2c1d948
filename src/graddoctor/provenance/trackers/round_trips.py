"""Round trips through Python: numbers, numpy arrays and lists made from a tensor's values.

`.item()`, `.numpy()`, `.tolist()` cut the graph; a tensor built from what they gave
(`torch.tensor(arr)`, `torch.from_numpy(...)`) carries the cut's taint, and the cut is
told where it was rebuilt. The numbers are held in small bounded tables: Python numbers
and lists cannot be weakly referenced.
"""

from __future__ import annotations

import math
import weakref
from collections import deque

import torch

from graddoctor.provenance.frames import user_chain
from graddoctor.provenance.taint import TaintTable
from graddoctor.provenance.trackers.cuts import CutTracker

Tensor = torch.Tensor
_MAX_NUMBERS = 256
# Arrays and lists made from a cut's values, by shape: a numpy op in between (np.clip, arr * 2)
# makes a new array whose identity says nothing, so a tensor rebuilt from an array of the same
# shape soon after is taken as the round trip's end.
_MAX_ARRAYS = 16
# Floats made from cut values (`.item()`), in order: Python arithmetic on them (`sum(losses)`,
# `total / n`) makes new float objects whose identity says nothing, so a tensor built from a
# float equal to one of them, or to the sum or mean of a run of consecutive ones, is taken as
# rebuilt from them. Bounded: the search is quadratic in this length, and runs only for a
# factory given a Python float while such floats were made.
_MAX_VALUES = 64


class RoundTrips:
    def __init__(self, cuts: CutTracker, taint: TaintTable) -> None:
        self.cuts = cuts
        self.taint = taint
        # read directly by the recorder's scan loop (`id(a) in numbers`); never replaced
        self.numbers: dict[int, tuple[object, frozenset]] = {}
        self.arrays: deque[tuple[tuple, frozenset]] = deque(maxlen=_MAX_ARRAYS)
        self.values: deque[tuple[float, frozenset]] = deque(maxlen=_MAX_VALUES)  # floats made from cuts

    def taint_of(self, value: object) -> frozenset:
        if isinstance(value, Tensor):
            return self.taint.get(value)
        return self.number_taint(value) or frozenset()

    def note(self, value: object, taint: frozenset) -> None:
        """`value` (a number, array or list) was made from values behind these cuts."""
        if isinstance(value, int) and -5 <= value <= 256:
            return  # CPython shares these objects: their identity says nothing
        # Python numbers and lists cannot be weakly referenced; they hold no tensor and the
        # table is bounded. Numpy arrays share the tensor's memory, so they are held weakly.
        try:
            held: object = weakref.ref(value)
        except TypeError:
            held = value
        if len(self.numbers) >= _MAX_NUMBERS:
            self.numbers.pop(next(iter(self.numbers)))
        self.numbers[id(value)] = (held, taint)
        if type(value) is float and math.isfinite(value):
            self.values.append((value, taint))
        shape = _shape_of(value)
        if shape is not None:
            self.arrays.append((shape, taint))

    def number_taint(self, value: object) -> frozenset | None:
        seen = self.numbers.get(id(value))
        if seen is None:
            return None
        held = seen[0]
        alive = held() if isinstance(held, weakref.ref) else held
        return seen[1] if alive is value else None

    def summed_taint(self, value: float, out: Tensor, how: str, frame) -> frozenset | None:
        """The cuts behind a float that equals a recorded float, or the sum or mean of a run of them."""
        if not _can_have_gradient(out):
            return None
        value = float(value)  # a numpy float64 from np.mean(losses) is a float subclass
        if not math.isfinite(value) or value == int(value):
            return None  # round numbers (0.0, 1.0, a count) match by accident
        values = list(self.values)
        found: frozenset | None = None
        for start in range(len(values) - 1, -1, -1):  # runs ending at the newest first
            total, taint = 0.0, frozenset()
            for count, (number, cuts) in enumerate(values[start:], 1):
                total += number
                taint |= cuts
                if math.isclose(value, total, rel_tol=1e-9) or math.isclose(value, total / count, rel_tol=1e-9):
                    found = taint
                    break
            if found is not None:
                break
        if found is None:
            return None
        chain = user_chain(frame) if frame is not None else []
        if chain:
            self.cuts.rebuilt(found, chain[0], f"torch.{how}(...)")
        return found  # the caller marks `requires_grad=True` on `out` as hiding the cut

    def rebuilt_from(self, value: object, out: Tensor, how: str, frame) -> frozenset | None:
        """The cuts behind an array or list a new tensor is built from, noting where it was built.

        Found by identity (the `.numpy()` result itself, or a view of it through `.base`), else
        by shape among the last arrays made from cut values: `np.clip(arr, ...)` is a new array.
        An integer or boolean tensor is never one: it cannot carry a gradient, so it hides no cut (a
        dataset line `torch.tensor([...], dtype=torch.long)` of a char-RNN, class indices, a mask).
        """
        if not _can_have_gradient(out):
            return None
        taint = self.taint_of(value)
        base = getattr(value, "base", None)
        while not taint and base is not None and not isinstance(base, (bytes, memoryview)):
            taint, base = self.taint_of(base), getattr(base, "base", None)
        if not taint:
            shape = _shape_of(value)
            if shape is None:
                return None
            taint = next((t for s, t in reversed(self.arrays) if s == shape), None)
            if not taint:
                return None
        chain = user_chain(frame) if frame is not None else []
        if chain:
            if not how.startswith("torch."):
                how = f"torch.{how}(...)"
            elif not how.endswith(")"):
                how += "(...)"
            self.cuts.rebuilt(taint, chain[0], how)
        return taint


def _can_have_gradient(out: Tensor) -> bool:
    return out.is_floating_point() or out.is_complex()


def _shape_of(value: object) -> tuple | None:
    """An array's shape, or a list's length, as a key to match a rebuilt tensor against."""
    shape = getattr(value, "shape", None)
    if shape is not None and not isinstance(value, Tensor):
        return ("array", tuple(shape))
    if type(value) is list:
        return ("list", len(value))
    return None
