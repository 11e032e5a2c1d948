"""Gradient accumulation: the optimizer steps, then clears, every accum_steps micro-batches."""
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 5))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
accum_steps = 4
loader = [(torch.randn(2, 12), torch.randint(0, 5, (2,))) for _ in range(8)]


def optimizer_update(optimizer):
    optimizer.step()
    optimizer.zero_grad()


for i, (xb, yb) in enumerate(loader):
    loss = F.cross_entropy(model(xb), yb) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        optimizer_update(opt)
