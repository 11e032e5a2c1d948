"""GD301: log of a probability that reaches 0 makes the loss infinite."""
# allow: GD302 GD303 GD305 GD306
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for step in range(10):
    x = torch.randn(32, 8) * 50
    y = torch.randint(0, 2, (32, 1)).float()
    p = torch.sigmoid(model(x))
    loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()  # expect: GD301
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
