# heldout: expect=GD108 line=19 alt_lines=18 static=no
# A gated block masks its sigmoid gate in place; sigmoid saved its output for backward.
import torch
import torch.nn as nn

torch.manual_seed(0)


class GatedBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.value = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)
        self.register_buffer("mask", (torch.rand(dim) > 0.2).float())

    def forward(self, x):
        h = torch.tanh(self.value(x))
        g = torch.sigmoid(self.gate(x))
        g *= self.mask
        return x + h * g


model = nn.Sequential(GatedBlock(8), GatedBlock(8), nn.Linear(8, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(64, 8)
y = x[:, :1] * 2 - 1

for step in range(20):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
print(loss.item())
