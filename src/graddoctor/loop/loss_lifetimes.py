"""GD207 without sampling: the results of loss functions that outlive their batch.

Every call of a `torch.nn.functional` loss (the nn loss modules call them)
that returns a tensor with history gets a tiny sentinel in its graph node's
`metadata`: the sentinel lives exactly as long as the node, so a weak
reference to it says, at no cost, whether anything still holds that graph.
A variable holds the latest result of its line (and perhaps the previous
one, or one per head of a deep-supervised loss), and is rebound each batch.
A running total (`total += criterion(out, y)` without `no_grad`) or a list
of losses holds every result of the line: the count of live results grows
with every call. The line is reported when, at a new call, at least
`threshold` earlier results of it are alive and the oldest of them was made
`threshold` calls ago: more than a rebound variable, a one-back copy or a
handful of heads can explain, and growing.

Per loss call: one metadata write, one weak reference, and a look at the
line's live list (pruned as it goes, so it stays short unless it grows).
"""

from __future__ import annotations

import weakref

import torch

from graddoctor.locate import Location, user_location

_KEY = "graddoctor.kept_alive"


class _Sentinel:
    __slots__ = ("__weakref__",)


class _Line:
    __slots__ = ("calls", "alive", "reported")

    def __init__(self) -> None:
        self.calls = 0
        self.alive: list[tuple[int, weakref.ref]] = []  # (call ordinal, sentinel)
        self.reported = False


class LossLifetimes:
    def __init__(self, threshold: int = 10) -> None:
        self.threshold = threshold
        self._lines: dict[tuple, _Line] = {}
        self.kept: list[tuple[Location, int, int]] = []  # (line, live results, oldest age in calls)

    def on_result(self, result, frame) -> Location | None:
        """One loss result; the line when it is now seen keeping its results alive."""
        if not isinstance(result, torch.Tensor):
            return None
        node = result.grad_fn
        if node is None:
            return None
        where = user_location(frame)
        key = (where.file, where.line)
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = _Line()
        if line.reported:
            return None
        line.calls += 1
        alive = [(n, ref) for n, ref in line.alive if ref() is not None]
        found = None
        if len(alive) >= self.threshold and line.calls - alive[0][0] >= self.threshold:
            line.reported = True
            self.kept.append((where, len(alive), line.calls - alive[0][0]))
            found = where
            alive = []
        else:
            sentinel = _Sentinel()
            node.metadata[_KEY] = sentinel
            alive.append((line.calls, weakref.ref(sentinel)))
        line.alive = alive
        return found
