# heldout: expect=GD101 line=13 alt_lines=14 static=yes
# Per-sample losses as floats, averaged with np.mean (a numpy float64), re-wrapped as the loss.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


def batch_loss(model, xb, yb, criterion):
    per_sample = []
    for x, y in zip(xb, yb):
        per_sample.append(criterion(model(x.unsqueeze(0)), y.unsqueeze(0)).item())
    return torch.tensor(np.mean(per_sample), dtype=torch.float32, requires_grad=True)


x, y = torch.randn(64, 5), torch.randn(64, 1)
model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(3):
    for i in range(0, 64, 16):
        loss = batch_loss(model, x[i:i + 16], y[i:i + 16], nn.MSELoss())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
