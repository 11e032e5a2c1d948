"""GD105: hidden layers kept in a plain Python list are invisible to model.parameters()."""
import torch
from torch import nn

torch.manual_seed(0)


class DeepNet(nn.Module):
    def __init__(self, width=16, depth=3):
        super().__init__()
        self.inp = nn.Linear(8, width)
        self.hidden = [nn.Linear(width, width) for _ in range(depth)]  # expect: GD105
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        h = torch.relu(self.inp(x))
        for layer in self.hidden:
            h = torch.relu(layer(h))
        return self.out(h)


model = DeepNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(20):
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
