"""GD305: a learning rate of 1e-7 moves the weights by a billionth of their size per step."""
# allow: GD306
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=1e-7)

for step in range(30):
    x = torch.randn(32, 8)
    y = x.sum(dim=1, keepdim=True)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()  # expect: GD305
