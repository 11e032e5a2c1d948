"""GD207 without sampling: the results of loss functions that outlive their batch.

Every call of a `torch.nn.functional` loss (the nn loss modules call them)
that returns a tensor with history gets a tiny sentinel in its graph node's
`metadata`: the sentinel lives exactly as long as the node, so a weak
reference to it says, at no cost, whether anything still holds that graph.
A variable holds the latest result of its line (and perhaps the previous
one, or one per head of a deep-supervised loss), and is rebound each batch.
A running total (`total += criterion(out, y)` without `no_grad`) or a list
of losses holds every result of the line: the count of live results grows
with every call. A line becomes suspect when, at a new call, at least
`threshold` earlier results of it are alive and the oldest of them was made
`threshold` calls ago.

A pile of live results is not a leak by itself: a reinforcement-learning
episode stores its per-step losses, sums them and backpropagates once; a
MAML outer step keeps one query loss per task. What tells them apart is
what happens to the pile next (`Pile.verdict`):

- no backward runs while it lives, and it dies or the run ends: graphs built
  and never used for training (an evaluation without `no_grad`): kept;
- a backward runs while it lives, and it is still alive `lag` optimizer steps
  later: history that survives the steps that consumed it (a running total
  of the training loss): kept;
- a backward runs while it lives, and it is gone within `lag` steps: it was
  built for that backward and released with it: silent, and the line is
  followed afresh.

Per loss call: one metadata write, one weak reference, and a look at the
line's live list (pruned as it goes, so it stays short unless it grows).
Per backward and per optimizer step: a look at the suspect piles (usually none).
"""

from __future__ import annotations

import weakref

import torch

from graddoctor.locate import Location, user_location

_KEY = "graddoctor.kept_alive"


class _Sentinel:
    __slots__ = ("__weakref__",)


def follow(node) -> weakref.ref:
    """A weak reference that dies when the autograd graph node `node` is freed."""
    sentinel = node.metadata.get(_KEY)
    if sentinel is None:
        sentinel = node.metadata[_KEY] = _Sentinel()
    return weakref.ref(sentinel)


class _Line:
    __slots__ = ("calls", "alive", "suspect")

    def __init__(self) -> None:
        self.calls = 0
        self.alive: list[tuple[int, weakref.ref]] = []  # (call ordinal, sentinel)
        self.suspect = False  # a pile of this line is being judged, or was found kept


class Pile:
    """The live results of one line when it became suspect, and what happened to them since."""

    __slots__ = ("where", "refs", "count", "age", "consumed_at")

    def __init__(self, where: Location, refs: list, age: int) -> None:
        self.where, self.refs, self.count, self.age = where, refs, len(refs), age
        self.consumed_at: int | None = None  # the optimizer step count at the first backward since

    def alive(self) -> bool:
        return any(r() is not None for r in self.refs)

    def verdict(self, steps: int, lag: int, final: bool) -> bool | None:
        """True: kept alive; False: released after its backward; None: not yet known."""
        if self.consumed_at is None:
            return True if (final or not self.alive()) else None
        if not self.alive():
            return False
        if steps - self.consumed_at >= lag:
            return True
        return False if final else None  # alive at the end right after its backward: say nothing


class LossLifetimes:
    def __init__(self, threshold: int = 10, lag: int = 2) -> None:
        self.threshold = threshold
        self.lag = lag
        self._lines: dict[tuple, _Line] = {}
        self._piles: dict[tuple, Pile] = {}
        self.backwards = 0
        self.steps = 0
        self.kept: list[Pile] = []

    def on_result(self, result, frame) -> list[Pile]:
        """One loss result; the piles now known to be kept alive."""
        found = self.settle() if self._piles else []
        if not isinstance(result, torch.Tensor):
            return found
        node = result.grad_fn
        if node is None:
            return found
        where = user_location(frame)
        key = (where.file, where.line)
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = _Line()
        if line.suspect:
            return found
        line.calls += 1
        alive = [(n, ref) for n, ref in line.alive if ref() is not None]
        if len(alive) >= self.threshold and line.calls - alive[0][0] >= self.threshold:
            line.suspect = True
            self._piles[key] = Pile(where, [ref for _, ref in alive], line.calls - alive[0][0])
            alive = []
        else:
            alive.append((line.calls, follow(node)))
        line.alive = alive
        return found

    def pending(self) -> bool:
        """Whether a pile of live results waits for its verdict (it needs every backward and step until then)."""
        return bool(self._piles)

    def on_backward(self) -> list[Pile]:
        """Before a backward: a pile that died without one was never trained on."""
        found = self.settle()
        self.backwards += 1
        for pile in self._piles.values():
            if pile.consumed_at is None:
                pile.consumed_at = self.steps
        return found

    def on_step(self) -> list[Pile]:
        self.steps += 1
        return self.settle() if self._piles else []

    def settle(self, final: bool = False) -> list[Pile]:
        found = []
        for key, pile in list(self._piles.items()):
            verdict = pile.verdict(self.steps, self.lag, final)
            if verdict is None:
                continue
            del self._piles[key]
            if verdict:
                found.append(pile)
                self.kept.append(pile)
            else:  # released with its backward: follow the line afresh
                self._lines[key].suspect = False
        return found
