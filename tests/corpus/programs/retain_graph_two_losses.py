"""Two backward passes through a shared graph, the first with retain_graph=True."""
import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(8, 32), nn.ReLU())
head_a, head_b = nn.Linear(32, 1), nn.Linear(32, 1)
params = list(trunk.parameters()) + list(head_a.parameters()) + list(head_b.parameters())
optimizer = torch.optim.SGD(params, lr=0.02)
w = torch.randn(8, 1)
for step in range(40):
    x = torch.randn(32, 8)
    h = trunk(x)
    loss_a = nn.functional.mse_loss(head_a(h), x @ w)
    loss_b = nn.functional.mse_loss(head_b(h), -(x @ w))
    optimizer.zero_grad()
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    optimizer.step()
