"""GD110: the forward pass and loss are computed inside torch.no_grad()."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for step in range(5):
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    with torch.no_grad():  # expect: GD110
        prediction = model(x)
        loss = nn.functional.mse_loss(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
