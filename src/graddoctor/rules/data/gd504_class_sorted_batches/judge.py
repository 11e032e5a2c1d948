"""GD504: class targets constant within each batch and changing between batches (data sorted by class).

Measured per checked call of a classification loss: the smallest and largest
class index of the batch's targets (one label per sample). The verdict needs
every checked batch so far to hold one class, at least two classes seen,
and a loader that reads in order: a `DataLoader` with a `SequentialSampler`
(shuffle off), or no DataLoader at all. A loader with its own batch sampler
groups on purpose (episodes, class-balanced batches) and is left alone. Once
a batch holds two classes, the check stops for good.
"""

from __future__ import annotations

import torch
from torch.utils.data import BatchSampler, SequentialSampler

from graddoctor.finding import Finding, Related
from graddoctor.lossdata import patches
from graddoctor.lossdata.calls import LossCall
from graddoctor.rules import make

_MIN_BATCH = 4
_MIN_BATCHES = 3


class SortedBatches:
    def __init__(self) -> None:
        self.done = False
        self.batches = 0
        self.classes: set[float] = set()
        self.first: LossCall | None = None
        self.found: Finding | None = None

    def wants(self, call: LossCall) -> bool:
        return not self.done and call.target_is_index and call.input_shape[0] >= _MIN_BATCH

    def measure(self, call: LossCall, x: torch.Tensor, target: torch.Tensor) -> list[torch.Tensor]:
        return [target.amin(), target.amax()]

    def take(self, call: LossCall, values: list[float]) -> None:
        low, high = values
        if low != high:
            self.done = True  # a mixed batch: the data is not sorted by class
            return
        self.batches += 1
        self.first = self.first or call
        self.classes.add(low)
        if len(self.classes) >= 2 and self.batches >= _MIN_BATCHES:
            self.done = True
            self.found = self._finding(call)

    def _finding(self, call: LossCall) -> Finding | None:
        loader = patches.last_loader()
        shown = call.where.shown()
        evidence = {"single_class_batches": self.batches, "classes": sorted(self.classes)[:10],
                    "batch_size": call.input_shape[0]}
        related = [Related(shown["file"], call.where.line, "the loss whose targets were looked at")]
        message = (f"The first {self.batches} training batches looked at each held a single class "
                   f"(classes {', '.join(_label(c) for c in sorted(self.classes)[:5])} in turn, batches of "
                   f"{call.input_shape[0]}): the data is read sorted by class. Each step then pushes every "
                   "prediction towards one class and the next batches push it back, so the model ends up "
                   "predicting the last class it saw.")
        if loader is None:
            return make("GD504", message, related=[], step=call.step, evidence=evidence, **shown,
                        hint="Shuffle the training data before batching it (e.g. `perm = torch.randperm(len(x))` "
                             "each epoch), or use `DataLoader(dataset, batch_size=..., shuffle=True)`.")
        batches = loader.batch_sampler
        if type(batches) is not BatchSampler or not isinstance(batches.sampler, SequentialSampler):
            return None  # shuffled, or grouped by the user's own sampler on purpose
        where = patches.built_at.get(loader)
        if where is None or not where.file:
            return make("GD504", message + " They come from a DataLoader with shuffle off.", related=[],
                        step=call.step, evidence=evidence, **shown)
        message += " The DataLoader built here reads them in order (shuffle is off)."
        return make("GD504", message, related=related, step=call.step, evidence=evidence, **where.shown())

    def findings(self) -> list[Finding]:
        return [self.found] if self.found is not None else []


def _label(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"
