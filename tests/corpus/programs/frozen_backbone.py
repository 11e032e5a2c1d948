"""Fine-tuning a head on a frozen backbone (requires_grad_(False), head-only optimizer)."""
import torch
from torch import nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
head = nn.Linear(8, 5)
model = nn.Sequential(backbone, head)
backbone.requires_grad_(False)
backbone.eval()
optimizer = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9)
w_true = torch.randn(3, 5)
for step in range(30):
    x = torch.randn(16, 3, 8, 8)
    y = (x.mean(dim=(2, 3)) @ w_true).argmax(dim=1)
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
