# Tiny mixture-of-experts layer; experts kept in a plain dict keyed by name (2025 forum).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MoE(nn.Module):
    def __init__(self, d=16, names=("math", "code", "chat")):
        super().__init__()
        self.names = list(names)
        self.gate = nn.Linear(d, len(self.names))
        experts = {}
        for name in self.names:
            experts[name] = nn.Sequential(nn.Linear(d, 32), nn.GELU(), nn.Linear(32, d))
        self.experts = experts

    def forward(self, x):
        weights = F.softmax(self.gate(x), dim=-1)
        outs = torch.stack([self.experts[n](x) for n in self.names], dim=-1)
        return (outs * weights.unsqueeze(-2)).sum(-1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(8, 16)
        self.moe = MoE()
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(self.moe(F.relu(self.inp(x))))


X = torch.randn(128, 8)
y = torch.sin(X.sum(1, keepdim=True))
model = Model()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

for step in range(30):
    idx = torch.randint(0, 128, (32,))
    loss = F.mse_loss(model(X[idx]), y[idx])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
