"""Samples read class by class, and a DataLoader that does not shuffle: every batch holds one class."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
labels = torch.arange(3).repeat_interleave(64)
features = torch.randn(3, 12)[labels] + torch.randn(192, 12)
train_loader = DataLoader(
    TensorDataset(features, labels),
    batch_size=16,
)
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
