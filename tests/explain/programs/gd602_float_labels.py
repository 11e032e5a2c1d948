"""Class labels stored as float (they came from a float array) given to CrossEntropyLoss."""
import torch
from torch import nn

features = torch.randn(48, 10)
labels = torch.randint(0, 3, (48,)).float()
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(0, 48, 16):
    x, y = features[i:i + 16], labels[i:i + 16]
    loss = criterion(model(x), y)  # raises
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
