"""GD210 fixed as printed: SGD given only the trainable parameters, with its own lr and momentum."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
for p in model[0].parameters():
    p.requires_grad_(False)
optimizer = torch.optim.SGD((p for p in model.parameters() if p.requires_grad), lr=0.05, momentum=0.9)
for step in range(12):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
