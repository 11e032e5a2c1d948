"""GD103: a per-sample loss (reduction='none') passed to backward()."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
criterion = nn.CrossEntropyLoss(reduction="none")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(5):
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()  # expect: GD103
    optimizer.step()
