"""GD503: an (N, 1) prediction minus an (N,) target is an (N, N) loss: each prediction meets every target."""
# allow: GD306
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(256, 6)
y = x @ torch.randn(6) + 0.1 * torch.randn(256)  # shape (256,)

model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 1))  # output (N, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(5):
    for i in range(0, 256, 32):
        pred = model(x[i:i + 32])
        loss = ((pred - y[i:i + 32]) ** 2).mean()  # expect: GD503
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
