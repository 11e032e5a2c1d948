"""Tiny real models and optimizers shared by the helpers' tests."""

from __future__ import annotations

import torch
from torch import nn


class TwoPart(nn.Module):
    """A body and a head, so optimizers can give them separate param groups."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Dropout(0.1))
        self.head = nn.Linear(16, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def make_model(seed: int = 0) -> TwoPart:
    torch.manual_seed(seed)
    return TwoPart()


def two_groups(model: TwoPart, kind: str = "sgd") -> torch.optim.Optimizer:
    groups = [
        {"params": model.body.parameters(), "lr": 0.05},
        {"params": model.head.parameters(), "lr": 0.2, "weight_decay": 1e-3},
    ]
    if kind == "adamw":
        return torch.optim.AdamW(groups, lr=1e-2)
    return torch.optim.SGD(groups, lr=0.1, momentum=0.9)


def all_params(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [p for g in optimizer.param_groups for p in g["params"]]


def same_params(a: nn.Module, b: nn.Module) -> bool:
    return all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
