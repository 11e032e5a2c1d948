"""The loss read out as a Python number "to log it", then backpropagated: a float has no backward()."""
import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()

for step in range(30):
    x = torch.randn(64, 8)
    optimizer.zero_grad()
    loss = criterion(model(x), x @ true_w).item()
    if step % 10 == 0:
        print(f"step {step}: loss {loss:.3f}")
    loss.backward()
    optimizer.step()
