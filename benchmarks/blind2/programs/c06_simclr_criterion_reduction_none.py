# SimCLR-style NT-Xent in a small trainer class; the criterion is built with reduction="none"
# so per-sample losses can be logged, and the per-sample vector is what gets backpropagated.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64))
        self.projector = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 16))

    def forward(self, x):
        return self.projector(self.backbone(x))


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
        v1 = x + 0.1 * torch.randn_like(x)
        v2 = x + 0.1 * torch.randn_like(x)
        loss = self.info_nce(self.model(v1), self.model(v2))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.detach()


trainer = SimCLRTrainer(Encoder())
for step in range(20):
    per_sample = trainer.train_step(torch.randn(32, 20))
    print(step, per_sample.mean().item(), per_sample.max().item())
