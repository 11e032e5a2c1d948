"""A (N, 1) prediction against a (N,) target in a hand-written MSE: it broadcasts to (N, N)."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(256, 6)
y = x @ torch.randn(6) + 0.1 * torch.randn(256)

model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(4):
    for i in range(0, 256, 32):
        pred = model(x[i:i + 32])
        loss = ((pred - y[i:i + 32]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
