# Product categorisation with one classifier head per taxonomy level; the heads
# are kept in a Python list built from the config.
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    d_in: int = 40
    hidden: int = 64
    level_sizes: tuple = (5, 20, 60)
    lr: float = 1e-3


class HierClassifier(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(cfg.d_in, cfg.hidden), nn.GELU(), nn.LayerNorm(cfg.hidden))
        self.heads = [nn.Linear(cfg.hidden, n) for n in cfg.level_sizes]

    def forward(self, x):
        h = self.backbone(x)
        return [head(h) for head in self.heads]


def hier_loss(outputs, labels):
    return sum(F.cross_entropy(o, labels[:, i]) for i, o in enumerate(outputs)) / len(outputs)


def train(cfg=Config(), steps=30):
    model = HierClassifier(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    for step in range(steps):
        x = torch.randn(32, cfg.d_in)
        labels = torch.stack([torch.randint(0, n, (32,)) for n in cfg.level_sizes], dim=1)
        loss = hier_loss(model(x), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(step, loss.item())
    return model


if __name__ == "__main__":
    train()
