"""Two encoders compared: independent layers (deep copies of a template) and ALBERT-style shared layer."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Layer(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 64), nn.GELU(), nn.Linear(64, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


def clones(module, n):
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class DeepEncoder(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.layers = clones(Layer(), n)
        self.heads = nn.ModuleList([nn.Linear(32, 2) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.heads[0](x) + self.heads[1](x.flip(0))


class SharedEncoder(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        self.shared = Layer()
        self.n = n
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        for _ in range(self.n):
            x = self.shared(x)
        return self.head(x)


x = torch.randn(256, 32)
y = (x[:, 0] > 0).long()
for model in (DeepEncoder(), SharedEncoder()):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for it in range(30):
        idx = torch.randint(0, 256, (32,))
        loss = F.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(type(model).__name__, sum(p.numel() for p in model.parameters()), round(loss.item(), 4))
