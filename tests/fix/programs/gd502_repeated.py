"""`[block] * depth`: one residual block four times, one set of weights."""
import torch
from torch import nn


class ResidualMLP(nn.Module):
    def __init__(self, width=16, depth=4):
        super().__init__()
        block = nn.Sequential(nn.Linear(width, width), nn.Tanh())
        self.inp = nn.Linear(8, width)
        self.blocks = nn.ModuleList([block] * depth)
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        h = self.inp(x)
        for block in self.blocks:
            h = h + block(h)
        return self.out(h)


torch.manual_seed(0)
model = ResidualMLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(30):
    x = torch.randn(64, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
