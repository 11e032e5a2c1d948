"""A class-sorted stream read through an IterableDataset: `shuffle=True` is refused by the DataLoader for a
stream, so the GD504 edit cannot verify; the fix is a shuffle buffer in the stream itself."""
import torch
from torch import nn
from torch.utils.data import DataLoader, IterableDataset


class ClassFolders(IterableDataset):
    def __init__(self):
        self.labels = torch.arange(3).repeat_interleave(64)
        self.features = torch.randn(3, 12)[self.labels] + torch.randn(192, 12)

    def __iter__(self):
        return iter(zip(self.features, self.labels))


torch.manual_seed(0)
loader = DataLoader(ClassFolders(), batch_size=16)
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
