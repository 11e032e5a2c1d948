"""GD106: the head is replaced after the optimizer was built, so no optimizer holds it."""
import torch
from torch import nn

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(self.features(x))


model = Backbone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model.fc = nn.Linear(32, 3)  # expect: GD106

for step in range(20):
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
