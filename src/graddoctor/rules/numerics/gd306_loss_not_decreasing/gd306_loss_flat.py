"""GD306: the targets are fresh noise every batch, so the loss cannot go down."""
# allow: GD305
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
nn.init.zeros_(model[2].weight)  # start at the loss floor, ln 2, as a trained model would
nn.init.zeros_(model[2].bias)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

for step in range(60):
    x = torch.randn(64, 8)
    y = torch.randint(0, 2, (64,))  # labels unrelated to x
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)  # expect: GD306
    loss.backward()
    optimizer.step()
