"""GD104: a head defined in __init__ but never used in forward()."""
import torch
from torch import nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
        self.aux_head = nn.Linear(32, 4)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        return self.head(self.encoder(x))


model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(20):
    x, y = torch.randn(32, 8), torch.randint(0, 4, (32,))
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()  # expect: GD104
    optimizer.step()
