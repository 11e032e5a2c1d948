"""Hidden layers kept in a plain Python list: model.parameters() does not see them."""
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, width: int = 16, depth: int = 2):
        super().__init__()
        self.inp = nn.Linear(8, width)
        self.hidden = [nn.Linear(width, width) for _ in range(depth)]
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        h = torch.relu(self.inp(x))
        for layer in self.hidden:
            h = torch.relu(layer(h))
        return self.out(h)


torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = MLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(30):
    x = torch.randn(64, 8)
    loss = nn.functional.mse_loss(model(x), x @ true_w)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
