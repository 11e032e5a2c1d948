"""A running total of the loss that keeps every iteration's graph alive."""
import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

running = 0.0
for step in range(30):
    x = torch.randn(64, 8)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), x @ true_w)
    loss.backward()
    optimizer.step()
    running += loss
print(f"mean loss {running.item() / 30:.4f}")
