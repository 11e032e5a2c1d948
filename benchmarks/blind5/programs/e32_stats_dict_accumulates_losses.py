"""Multi-task model (classification + regression heads) with per-task running statistics."""
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MultiTaskNet(nn.Module):
    def __init__(self, din=16):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(din, 64), nn.ReLU())
        self.cls_head = nn.Linear(64, 3)
        self.reg_head = nn.Linear(64, 1)

    def forward(self, x):
        h = self.shared(x)
        return {"logits": self.cls_head(h), "value": self.reg_head(h).squeeze(-1)}


def task_losses(out, batch):
    return {
        "cls": F.cross_entropy(out["logits"], batch["label"]),
        "reg": F.mse_loss(out["value"], batch["target"]),
    }


def run_epoch(model, optimizer, batches, weights):
    stats = defaultdict(float)
    for batch in batches:
        losses = task_losses(model(batch["x"]), batch)
        total = sum(weights[k] * v for k, v in losses.items())
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
        for name, value in losses.items():
            stats[name] += value
        stats["n"] += 1
    return {k: float(v) / stats["n"] for k, v in stats.items() if k != "n"}


def make_batches(n_batches=20, bs=32):
    out = []
    for _ in range(n_batches):
        x = torch.randn(bs, 16)
        out.append({"x": x, "label": (x[:, 0] > 0).long() + (x[:, 1] > 1).long(),
                    "target": x[:, 2] * 2 + x[:, 3]})
    return out


model = MultiTaskNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
batches = make_batches()
for epoch in range(3):
    print(epoch, run_epoch(model, optimizer, batches, {"cls": 1.0, "reg": 0.5}))
