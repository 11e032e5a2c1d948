"""A learnable temperature created from an integer literal."""
import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.temperature = nn.Parameter(torch.tensor(1))  # raises

    def forward(self, x):
        return self.fc(x) / self.temperature


model = Scaled()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
