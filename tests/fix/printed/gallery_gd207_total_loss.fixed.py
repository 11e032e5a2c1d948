"""GD207 (gallery gd207_total_loss.py) fixed as printed: the running total accumulates `loss.detach()`."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

total_loss = 0
for step in range(30):
    x, y = torch.randn(64, 8), torch.randn(64, 1)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    total_loss += loss.detach()
print(f"mean loss {total_loss.item() / 30:.4f}")
