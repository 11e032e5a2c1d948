"""SimCLR-style pretraining with an auxiliary variance term; the loss never goes down."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class Config:
    dim: int = 32
    proj: int = 16
    temperature: float = 0.2
    var_weight: float = 0.1
    lr: float = 1e-3
    steps: int = 30


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(cfg.dim, 64), nn.ReLU(), nn.Linear(64, 64))
        self.head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, cfg.proj))

    def forward(self, x):
        return self.head(self.backbone(x))


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def nt_xent(z1, z2, temperature):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / temperature
    n = z1.shape[0]
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


class ContrastiveTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = Encoder(cfg)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)

    def compute_losses(self, x):
        z1, z2 = self.model(augment(x)), self.model(augment(x))
        std = torch.sqrt(z1.var(dim=0) + 1e-4)
        return {
            "nce": nt_xent(z1, z2, self.cfg.temperature).item(),
            "var": F.relu(1.0 - std).mean().item(),
        }

    def train_step(self, x):
        terms = self.compute_losses(x)
        total = terms["nce"] + self.cfg.var_weight * terms["var"]
        loss = torch.tensor(total, requires_grad=True)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return terms


if __name__ == "__main__":
    cfg = Config()
    trainer = ContrastiveTrainer(cfg)
    data = torch.randn(256, cfg.dim)
    for step in range(cfg.steps):
        idx = torch.randint(0, 256, (64,))
        terms = trainer.train_step(data[idx])
        if step % 10 == 0:
            print(step, {k: round(v, 4) for k, v in terms.items()})
