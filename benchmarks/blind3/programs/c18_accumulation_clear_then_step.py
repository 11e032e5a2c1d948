"""Gradient accumulation over micro-batches for a small CNN."""
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
accum_steps = 4
loader = [(torch.randn(2, 3, 12, 12), torch.randint(0, 5, (2,))) for _ in range(8)]


def optimizer_update(optimizer):
    optimizer.zero_grad()
    optimizer.step()


for i, (images, labels) in enumerate(loader):
    loss = F.cross_entropy(model(images), labels) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        optimizer_update(opt)
