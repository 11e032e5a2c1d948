"""GD102: the loss is built from argmax, which has no gradient, so the graph is cut."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(5):
    x, y = torch.randn(32, 8), torch.randint(0, 4, (32,))
    logits = model(x)
    predicted = logits.argmax(dim=1).float()  # expect: GD102
    loss = ((predicted - y.float()) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
