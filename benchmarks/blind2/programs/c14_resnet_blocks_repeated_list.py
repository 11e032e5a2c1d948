# A small residual MLP where the blocks are built by repeating one block object.
import torch
import torch.nn as nn

torch.manual_seed(0)


class ResBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        return x + self.ff(x)


class ResMLP(nn.Module):
    def __init__(self, d_in=12, dim=32, depth=4):
        super().__init__()
        self.stem = nn.Linear(d_in, dim)
        block = ResBlock(dim)
        self.blocks = nn.Sequential(*([block] * depth))
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


model = ResMLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    x = torch.randn(64, 12)
    y = x[:, :3].sum(dim=1, keepdim=True)
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
