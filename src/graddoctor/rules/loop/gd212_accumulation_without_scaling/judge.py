"""GD212: the same per-batch mean loss backpropagated N >= 2 times per optimizer step, never divided by N.

The evidence is the order of events and the last node of each backward's graph, nothing
else: between two optimizer steps, which lines called backward and whether each loss is
still the loss function's own output (a mean-reduced loss node, or `MeanBackward0`) or was
divided, multiplied or summed afterwards (then its last node is `DivBackward0`,
`MulBackward0`, `AddBackward0`... and the user scaled or combined it on purpose). A loss
given to `GradScaler.scale` is read through the scaler's multiplication.

Cost: per backward, one look at the loss's `grad_fn` (its type and one saved integer);
per step, a few list operations. No tensor data is read.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

import torch

from graddoctor.finding import Finding, Severity
from graddoctor.graph.phrases import related_at
from graddoctor.locate import Location
from graddoctor.rules import make
from graddoctor.session.manual_steps import ManualUpdates
from graddoctor.session.observer import BackwardEvent, CallEvent, Observer, StepEvent

_MEAN = 1  # torch's Reduction enum: 0 none, 1 mean, 2 sum
_MIN_STEPS = 2
_MAX_SCALED = 8  # GradScaler.scale results remembered (one or two per step)
_MAX_REPLAYED = 8  # optimizer steps in one repeated iteration that a resync can replay
# Optimizers that follow the gradient's size: an N times larger gradient is an N times larger step.
SIZE_FOLLOWING = (torch.optim.SGD, torch.optim.ASGD)


def unscaled_mean(loss: torch.Tensor) -> str | None:
    """The name of `loss`'s last graph node when it is a mean-reduced loss as the loss function
    returned it (`NllLossBackward0`, `MseLossBackward0`, `MeanBackward0`...), else None."""
    node = loss.grad_fn
    if node is None:
        return None
    name = type(node).__name__
    if name == "MeanBackward0":
        return name
    if name.endswith("LossBackward0") or name.startswith(("BinaryCrossEntropy", "NllLoss")):
        return name if getattr(node, "_saved_reduction", None) == _MEAN else None
    return None


@dataclass
class _Window:
    """The backwards between two optimizer steps."""

    lines: list = field(default_factory=list)  # (file, line) of each backward
    kinds: list = field(default_factory=list)  # unscaled_mean() of each loss
    first: Location | None = None


@dataclass
class _Pattern:
    backward: Location
    step: Location
    counts: list = field(default_factory=list)  # N of each accumulating step
    node: str = ""
    optimizers: set = field(default_factory=set)


class AccumulationWithoutScaling(Observer):
    name = "accumulation"
    codes = frozenset({"GD212"})

    def __init__(self) -> None:
        self.window = _Window()
        self.patterns: dict[tuple, _Pattern] = {}  # (backward line, step line) -> accumulating steps
        self.steps_at: Counter = Counter()  # step line -> steps that had backwards before them
        self.scaled: list[tuple[int, str | None]] = []  # (id of scaler.scale's result, its input's kind)
        self.optimizer_types: dict[tuple, type] = {}
        self.closed: deque = deque(maxlen=_MAX_REPLAYED)  # the last windows closed by a step, for `resync`
        self._replay: list | None = None  # while asleep: one iteration's keys, each with what it did here

    def on_call(self, event: CallEvent) -> None:
        if event.kind == "scaler" and event.method == "scale" and event.args:
            loss = event.args[0]
            if isinstance(loss, torch.Tensor) and isinstance(event.result, torch.Tensor):
                self.scaled = [*self.scaled[-_MAX_SCALED:], (id(event.result), unscaled_mean(loss))]

    def before_backward(self, event: BackwardEvent) -> None:
        loss = event.loss
        kind = None
        if isinstance(loss, torch.Tensor):
            kind = next((k for i, k in self.scaled if i == id(loss)), None) if self.scaled else None
            if kind is None:
                kind = unscaled_mean(loss)
        w = self.window
        w.lines.append((event.where.file, event.where.line))
        w.kinds.append(kind)
        if w.first is None:
            w.first = event.where

    def before_step(self, event: StepEvent) -> None:
        w, self.window = self.window, _Window()
        self.closed.append(w)
        if not w.lines or isinstance(event.optimizer, ManualUpdates):
            return
        self._close(w, event.where, type(event.optimizer))

    def _close(self, w: _Window, where: Location, optimizer: type | None, times: int = 1) -> None:
        """`times` optimizer steps at `where`, each after the backwards of window `w`."""
        step_key = (where.file, where.line)
        self.steps_at[step_key] += times
        n = len(w.lines)
        if n < 2 or len(set(w.lines)) != 1 or any(k is None for k in w.kinds):
            return
        key = (w.lines[0], step_key)
        pattern = self.patterns.get(key)
        if pattern is None:
            pattern = self.patterns[key] = _Pattern(w.first, where, node=w.kinds[0])
        pattern.counts.extend([n] * times)
        if optimizer is not None:
            pattern.optimizers.add(optimizer)

    # --- repeated iterations (session/rhythm.py) ---------------------------------------------------

    def wake_in(self, rhythm) -> int | None:
        """Asleep through any number of repeated iterations: each backward's line and loss node are in its
        key, so what the windows of a skipped iteration held is what they held in the last one seen (kept in
        `closed`). Awake while the loop scales its losses (the scaler's results are read one by one)."""
        keys = rhythm.pattern[:-1]
        steps = sum(1 for key in keys if key[0] == "step")
        self._replay = None
        if self.window.lines or not steps or steps > len(self.closed):
            return -1
        if any(key[0] == "call" and key[1] == "scaler" for key in keys):
            return -1
        windows = list(self.closed)[-steps:]
        replay, position = [], 0
        for key in keys:
            w = windows[0] if windows else None
            if key[0] == "backward":
                if w is None or position >= len(w.lines) or w.lines[position] != (key[1].file, key[1].line):
                    return -1
                replay.append((key, w.kinds[position]))
                position += 1
            elif key[0] == "step":
                if w is None or position != len(w.lines):
                    return -1
                replay.append((key, windows.pop(0)))
                position = 0
            else:
                replay.append((key, None))
        self._replay = replay
        return None

    def resync(self, skipped: int, prefix: tuple, rhythm) -> None:
        """The steps of the iterations missed, each after the same window as in the last one seen; the
        backwards of the iteration in progress in the window again."""
        replay, self._replay = self._replay, None
        if replay is None:
            return
        if skipped:
            for key, w in replay:
                if key[0] == "step" and w.lines:
                    self._close(w, key[2], None, skipped)
        for (key, what), seen in zip(replay, prefix):
            if key[0] == "backward":
                w = self.window
                w.lines.append((key[1].file, key[1].line))
                w.kinds.append(what)
                if w.first is None:
                    w.first = key[1]
            elif key[0] == "step":
                self.window = _Window()
                self.closed.append(what)
                if what.lines:
                    self._close(what, key[2], None)

    def findings(self) -> list[Finding]:
        out = []
        for (_, step_key), p in self.patterns.items():
            if len(p.counts) < _MIN_STEPS or 2 * len(p.counts) < self.steps_at[step_key]:
                continue
            n = Counter(p.counts).most_common(1)[0][0]
            out.append(_finding(p, n, self.steps_at[step_key]))
        return out


def _finding(p: _Pattern, n: int, steps: int) -> Finding:
    names = sorted(t.__name__ for t in p.optimizers)
    follows_size = all(issubclass(t, SIZE_FOLLOWING) for t in p.optimizers)
    optimizer = " and ".join(names)
    if follows_size:
        effect = (f"{optimizer} takes a step {n} times as large as the mean gradient of the {n} micro-batches: "
                  f"the effective learning rate is {n} x lr, and changing the accumulation count changes the training.")
    else:
        effect = (f"{optimizer} divides the gradient by its own running size, so the factor {n} mostly cancels; "
                  f"but gradient clipping thresholds and a switch to SGD see the gradient {n} times too large.")
    message = (f"`backward()` ran {n} times before each optimizer step ({len(p.counts)} of {steps} steps) on a "
               f"per-batch mean loss that is not divided by {n}: the {n} micro-batch gradients add up in .grad. "
               + effect)
    evidence = {"backwards_per_step": n, "accumulating_steps": len(p.counts), "steps": steps,
                "reduction": "mean", "loss_node": p.node, "optimizer": optimizer}
    return make("GD212", message, severity=Severity.WARNING if follows_size else Severity.INFO,
                related=related_at(p.step, "the optimizer step the gradients add up for"),
                evidence=evidence, **p.backward.shown())
