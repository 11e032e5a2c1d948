# SimCLR-style trainer whose criterion keeps per-sample losses for logging, averaged before backward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SimCLRTrainer:
    def __init__(self, model, temperature=0.5):
        self.model = model
        self.temperature = temperature
        self.criterion = nn.CrossEntropyLoss(reduction="none")
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def info_nce(self, z1, z2):
        z = F.normalize(torch.cat([z1, z2]), dim=1)
        sim = z @ z.t() / self.temperature
        n = z1.size(0)
        sim.fill_diagonal_(float("-inf"))
        labels = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return self.criterion(sim, labels)

    def train_step(self, x):
        per_sample = self.info_nce(self.model(x + 0.1 * torch.randn_like(x)), self.model(x + 0.1 * torch.randn_like(x)))
        loss = per_sample.mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return per_sample.detach()


trainer = SimCLRTrainer(nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 16)))
for step in range(20):
    per_sample = trainer.train_step(torch.randn(32, 20))
    print(step, per_sample.mean().item(), per_sample.max().item())
