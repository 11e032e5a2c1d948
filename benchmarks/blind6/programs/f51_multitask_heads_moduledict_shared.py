# Multi-domain sentiment: one head per domain in a ModuleDict, built from a single
# head object by a dict comprehension.
import torch
import torch.nn as nn
import torch.nn.functional as F

DOMAINS = ("books", "electronics", "kitchen", "dvd")


class MultiDomainModel(nn.Module):
    def __init__(self, d_in=100, d=64):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(d_in, d), nn.ReLU())
        head = nn.Sequential(nn.Linear(d, d // 2), nn.ReLU(), nn.Linear(d // 2, 2))
        self.heads = nn.ModuleDict({name: head for name in DOMAINS})

    def forward(self, x, domain):
        return self.heads[domain](self.shared(x))


def train(model, steps=40):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        domain = DOMAINS[step % len(DOMAINS)]
        x, y = torch.randn(32, 100), torch.randint(0, 2, (32,))
        loss = F.cross_entropy(model(x, domain), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(step, domain, loss.item())


train(MultiDomainModel())
