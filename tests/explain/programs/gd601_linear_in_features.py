"""A small CNN whose head was sized by hand for 8x8 images; the images are 10x10."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU())
        self.head = nn.Linear(4 * 6 * 6, 10)

    def forward(self, x):
        h = self.features(x).flatten(1)
        return self.head(h)  # raises


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(16, 1, 10, 10), torch.randint(0, 10, (16,))) for _ in range(3)]
for x, y in data:
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
