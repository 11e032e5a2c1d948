"""A linear regression whose gradients are never cleared: each step applies the sum of all gradients so far."""
import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for step in range(30):
    x = torch.randn(64, 8)
    y = x @ true_w
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
