# Trainer class with mixed precision and a `_clip` helper. The helper is called
# on scaled gradients: unscale_ is never called.
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainConfig:
    lr: float = 3e-4
    max_grad_norm: float = 0.5
    amp: bool = torch.cuda.is_available()
    device: str = "cuda" if torch.cuda.is_available() else "cpu"


class AmpTrainer:
    def __init__(self, model, cfg: TrainConfig):
        self.cfg = cfg
        self.model = model.to(cfg.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg.lr)
        self.scaler = torch.amp.GradScaler(cfg.device, enabled=cfg.amp)

    def _clip(self):
        return nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_grad_norm)

    def step(self, x, y):
        with torch.autocast(self.cfg.device, dtype=torch.float16, enabled=self.cfg.amp):
            loss = F.smooth_l1_loss(self.model(x), y)
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        norm = self._clip()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.item(), float(norm)


cfg = TrainConfig()
trainer = AmpTrainer(nn.Sequential(nn.Linear(10, 64), nn.SiLU(), nn.Linear(64, 2)), cfg)
for it in range(10):
    print(it, trainer.step(torch.randn(32, 10, device=cfg.device), torch.randn(32, 2, device=cfg.device)))
