"""Mixed precision with the gradients unscaled before clipping, in a trainer method."""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"


class AmpTrainer:
    def __init__(self, model, max_grad_norm=1.0):
        self.model = model.to(device)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scaler = torch.amp.GradScaler(device, enabled=device == "cuda")
        self.max_grad_norm = max_grad_norm

    def clip(self):
        self.scaler.unscale_(self.opt)
        return nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)

    def fit(self, loader):
        for x, y in loader:
            with torch.autocast(device_type=device, enabled=device == "cuda"):
                loss = F.cross_entropy(self.model(x.to(device)), y.to(device))
            self.opt.zero_grad()
            self.scaler.scale(loss).backward()
            self.clip()
            self.scaler.step(self.opt)
            self.scaler.update()


AmpTrainer(nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))).fit(
    [(torch.randn(8, 20), torch.randint(0, 3, (8,))) for _ in range(4)])
