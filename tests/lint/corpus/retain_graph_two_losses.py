"""Two backward passes through a shared trunk with retain_graph=True, one step."""
import torch
import torch.nn as nn

trunk = nn.Sequential(nn.Linear(16, 32), nn.Tanh())
head_a = nn.Linear(32, 1)
head_b = nn.Linear(32, 1)
optimizer = torch.optim.Adam([*trunk.parameters(), *head_a.parameters(), *head_b.parameters()], lr=1e-3)

for step in range(1000):
    x = torch.randn(64, 16)
    h = trunk(x)
    loss_a = head_a(h).pow(2).mean()
    loss_b = (head_b(h) - 1).abs().mean()
    optimizer.zero_grad()
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    optimizer.step()
    if step % 100 == 0:
        print(step, loss_a.item(), loss_b.item())
