"""A Trainer class with mixed precision, gradient accumulation and gradient clipping."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"


class AmpTrainer:
    def __init__(self, model, accum=2, max_grad_norm=1.0):
        self.model = model.to(device)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scaler = torch.cuda.amp.GradScaler(enabled=device == "cuda")
        self.accum, self.max_grad_norm = accum, max_grad_norm

    def clip(self):
        return nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)

    def fit(self, loader):
        for i, (x, y) in enumerate(loader):
            with torch.autocast(device_type=device, enabled=device == "cuda"):
                loss = F.cross_entropy(self.model(x.to(device)), y.to(device)) / self.accum
            self.scaler.scale(loss).backward()
            if (i + 1) % self.accum == 0:
                self.clip()
                self.scaler.step(self.opt)
                self.scaler.update()
                self.opt.zero_grad()


model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))
AmpTrainer(model).fit([(torch.randn(8, 20), torch.randint(0, 3, (8,))) for _ in range(4)])
