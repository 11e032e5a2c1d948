# Multi-task face attributes (age regression + gender + smile), structured trainer.
# The weighted total is summed from Python floats.
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TaskWeights:
    weights: dict = field(default_factory=lambda: {"age": 0.5, "gender": 1.0, "smile": 1.0})


class MultiHead(nn.Module):
    def __init__(self, d_in=20, d=64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, d), nn.ReLU())
        self.age = nn.Linear(d, 1)
        self.gender = nn.Linear(d, 2)
        self.smile = nn.Linear(d, 1)

    def forward(self, x):
        h = self.trunk(x)
        return {"age": self.age(h).squeeze(-1), "gender": self.gender(h), "smile": self.smile(h).squeeze(-1)}


class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        self.opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

    def task_losses(self, out, batch):
        return {
            "age": F.l1_loss(out["age"], batch["age"]),
            "gender": F.cross_entropy(out["gender"], batch["gender"]),
            "smile": F.binary_cross_entropy_with_logits(out["smile"], batch["smile"]),
        }

    def step(self, batch):
        self.opt.zero_grad()
        losses = self.task_losses(self.model(batch["x"]), batch)
        total = sum(self.cfg.weights[k] * float(v) for k, v in losses.items())
        total.backward()
        self.opt.step()
        return total


def make_batch(n=32):
    return {"x": torch.randn(n, 20), "age": torch.rand(n) * 80, "gender": torch.randint(0, 2, (n,)),
            "smile": torch.randint(0, 2, (n,)).float()}


trainer = Trainer(MultiHead(), TaskWeights())
for it in range(20):
    print(it, trainer.step(make_batch()))
