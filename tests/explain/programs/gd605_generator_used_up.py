"""The parameter count is printed from the same generator the optimizer is then given."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 1))
params = model.parameters()
print("parameters:", sum(p.numel() for p in params))
optimizer = torch.optim.Adam(params, lr=1e-3)  # raises
for _ in range(3):
    x, y = torch.randn(8, 10), torch.randn(8, 1)
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
