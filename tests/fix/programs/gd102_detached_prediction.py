"""A house-price regressor whose prediction is detached "to move it to the CPU for the metric" before the loss:
the loss has no graph, so backward() fails."""
import torch
from torch import nn

torch.manual_seed(0)
features = torch.randn(256, 6)
prices = features @ torch.randn(6, 1) + 0.1 * torch.randn(256, 1)

model = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(6):
    for i in range(0, 256, 64):
        x, y = features[i:i + 64], prices[i:i + 64]
        pred = model(x).detach().cpu()
        loss = nn.functional.mse_loss(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: mse {loss.item():.4f}")
