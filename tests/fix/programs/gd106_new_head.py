"""Fine-tuning: the head is replaced after the optimizer was built, so the optimizer holds the old head."""
import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(self.features(x))


torch.manual_seed(0)
centers = torch.randn(3, 8) * 2
model = Backbone()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model.fc = nn.Linear(32, 3)  # fine-tune for 3 classes

for step in range(30):
    y = torch.randint(0, 3, (32,))
    x = centers[y] + torch.randn(32, 8)
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
