"""What the session has seen being created: optimizers (with the user's line)."""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import torch

from graddoctor.locate import NOWHERE, Location


@dataclass
class OptimizerRecord:
    optimizer: torch.optim.Optimizer
    created_at: Location
    label: str  # e.g. "SGD" or "AdamW #2"

    def param_ids(self) -> set[int]:
        return {id(p) for group in self.optimizer.param_groups for p in group["params"]}

    def params(self) -> list[torch.Tensor]:
        return [p for group in self.optimizer.param_groups for p in group["params"]]


_created: "weakref.WeakKeyDictionary[torch.optim.Optimizer, Location]" = weakref.WeakKeyDictionary()


def remember_creation(optimizer: torch.optim.Optimizer, where: Location) -> None:
    _created.setdefault(optimizer, where)


def created_at(optimizer: torch.optim.Optimizer) -> Location:
    """The user's line that built `optimizer`, when the session saw it built."""
    return _created.get(optimizer, NOWHERE)


def record_for(optimizers: list[torch.optim.Optimizer]) -> list[OptimizerRecord]:
    """Records for the given optimizers, labelled by class (numbered when repeated)."""
    counts: dict[str, int] = {}
    out = []
    for opt in optimizers:
        cls = type(opt).__name__
        counts[cls] = counts.get(cls, 0) + 1
        label = cls if counts[cls] == 1 else f"{cls} #{counts[cls]}"
        out.append(OptimizerRecord(opt, _created.get(opt, NOWHERE), label))
    return out
