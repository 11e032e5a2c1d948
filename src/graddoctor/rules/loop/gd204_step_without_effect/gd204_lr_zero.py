"""GD204: a learning rate of 0 (a typo'd config) makes every step a no-op."""
# allow: GD305 GD306
import torch
from torch import nn

torch.manual_seed(0)
config = {"lr": 0.0, "momentum": 0.9}
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=config["momentum"])

for step in range(20):
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()  # expect: GD204
