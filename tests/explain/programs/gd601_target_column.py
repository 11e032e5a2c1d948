"""Labels read as a column (N, 1) from a table, given to CrossEntropyLoss."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

table = torch.randn(64, 5)
features, labels = table[:, :4], (table[:, 4:] > 0).long()
loader = DataLoader(TensorDataset(features, labels), batch_size=16)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)  # raises
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
