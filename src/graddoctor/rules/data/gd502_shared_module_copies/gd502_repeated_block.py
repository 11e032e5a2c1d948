"""GD502: `[block] * 4` puts one layer in the list four times: four "layers", one set of weights."""
import torch
from torch import nn

torch.manual_seed(0)


class ResidualMLP(nn.Module):
    def __init__(self, width=16, depth=4):
        super().__init__()
        block = nn.Sequential(nn.Linear(width, width), nn.Tanh())
        self.inp = nn.Linear(8, width)
        self.blocks = nn.ModuleList([block] * depth)  # expect: GD502
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        h = self.inp(x)
        for block in self.blocks:
            h = h + block(h)
        return self.out(h)


model = ResidualMLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(20):
    x = torch.randn(32, 8)
    y = x.sum(dim=1, keepdim=True)
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
