"""Gradient accumulation: loss / k, one zero_grad and one step per k micro-batches."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
accum = 4
w = torch.randn(8, 1)
optimizer.zero_grad()
for i in range(48):
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x @ w) / accum
    loss.backward()
    if (i + 1) % accum == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
