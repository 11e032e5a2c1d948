"""GD501: the model ends in a softmax and CrossEntropyLoss applies its own: probabilities, not logits."""
# allow: GD306
import torch
from torch import nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return torch.softmax(self.body(x), dim=1)  # expect: GD501


centers = torch.randn(4, 10) * 3
model = Classifier()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(40):
    y = torch.randint(0, 4, (32,))
    x = centers[y] + torch.randn(32, 10)
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
