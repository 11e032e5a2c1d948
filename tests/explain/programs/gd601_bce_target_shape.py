"""A binary classifier with one output unit, labels of shape (N,)."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for _ in range(3):
    x = torch.randn(32, 6)
    y = (x.sum(1) > 0).float()
    loss = criterion(model(x), y)  # raises
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
