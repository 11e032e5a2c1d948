"""GD504: the dataset is sorted by class and the DataLoader does not shuffle: one class per batch."""
# allow: GD306
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
labels = torch.arange(3).repeat_interleave(64)  # 0,0,...,1,1,...,2,2,...: as read from class folders
features = torch.randn(3, 12)[labels] + torch.randn(192, 12)
loader = DataLoader(TensorDataset(features, labels), batch_size=16)  # expect: GD504

model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
