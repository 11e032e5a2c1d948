"""GD304: a deep stack of sigmoids: the first layers' gradients all but vanish."""
# allow: GD305 GD306
# expect-anywhere: GD304
import torch
from torch import nn

torch.manual_seed(0)
layers = []
for _ in range(12):
    layers += [nn.Linear(32, 32), nn.Sigmoid()]
model = nn.Sequential(*layers, nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for step in range(20):
    x, y = torch.randn(64, 32), torch.randn(64, 1)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
