"""Multi-task regression + classification with a loss dictionary (weighted sum)."""
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class LossConfig:
    weights: dict = field(default_factory=lambda: {"cls": 1.0, "reg": 0.5})
    epochs: int = 3
    lr: float = 3e-3


class SharedTrunk(nn.Module):
    def __init__(self, d_in=16, d=32, n_cls=4):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, d), nn.GELU(), nn.Linear(d, d), nn.GELU())
        self.cls_head = nn.Linear(d, n_cls)
        self.reg_head = nn.Linear(d, 1)

    def forward(self, x):
        h = self.trunk(x)
        return {"cls": self.cls_head(h), "reg": self.reg_head(h).squeeze(-1)}


def task_losses(out, batch):
    return {
        "cls": F.cross_entropy(out["cls"], batch["label"]).item(),
        "reg": F.smooth_l1_loss(out["reg"], batch["target"]).item(),
    }


def main():
    torch.manual_seed(0)
    cfg = LossConfig()
    x = torch.randn(256, 16)
    data = {"x": x, "label": (x[:, 0] > 0).long() + 2 * (x[:, 1] > 0).long(), "target": x[:, 2] * 3}
    model = SharedTrunk()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        for i in range(0, 256, 32):
            batch = {k: v[i:i + 32] for k, v in data.items()}
            losses = task_losses(model(batch["x"]), batch)
            total = torch.tensor(sum(cfg.weights[k] * v for k, v in losses.items()), requires_grad=True)
            opt.zero_grad()
            total.backward()
            opt.step()
        print(f"epoch {epoch} " + " ".join(f"{k}={v:.3f}" for k, v in losses.items()))


if __name__ == "__main__":
    main()
