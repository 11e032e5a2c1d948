# BYOL-like self-supervised step; the author detached the online projection too (2025 issue).
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def mlp(i, h, o):
    return nn.Sequential(nn.Linear(i, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, o))


class BYOL(nn.Module):
    def __init__(self, dim=12):
        super().__init__()
        self.online = nn.Sequential(mlp(dim, 32, 16))
        self.predictor = mlp(16, 32, 16)
        self.target = copy.deepcopy(self.online)
        for p in self.target.parameters():
            p.requires_grad_(False)

    def loss_fn(self, p, z):
        p, z = F.normalize(p, dim=-1), F.normalize(z, dim=-1)
        return (2 - 2 * (p * z).sum(dim=-1)).mean()

    def forward(self, v1, v2):
        p1, p2 = self.predictor(self.online(torch.cat([v1, v2]))).detach().chunk(2)
        with torch.no_grad():
            z1, z2 = self.target(v1), self.target(v2)
        return self.loss_fn(p1, z2) + self.loss_fn(p2, z1)

    @torch.no_grad()
    def update_target(self, tau=0.99):
        for po, pt in zip(self.online.parameters(), self.target.parameters()):
            pt.mul_(tau).add_(po, alpha=1 - tau)


data = torch.randn(96, 12)
model = BYOL()
optimizer = torch.optim.Adam(list(model.online.parameters()) + list(model.predictor.parameters()), lr=1e-3)

for epoch in range(4):
    for i in range(0, 96, 32):
        x = data[i:i + 32]
        loss = model(x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        model.update_target()
    print(f"epoch {epoch} loss {loss.item():.4f}")
