"""BYOL/Mean-teacher style: an EMA copy updated under torch.no_grad()."""
import copy

import torch
from torch import nn

torch.manual_seed(0)
online = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 8))
target = copy.deepcopy(online)
for p in target.parameters():
    p.requires_grad_(False)
optimizer = torch.optim.SGD(online.parameters(), lr=0.05, momentum=0.9)


@torch.no_grad()
def ema_update(decay=0.99):
    for p_t, p_o in zip(target.parameters(), online.parameters()):
        p_t.mul_(decay).add_(p_o.detach(), alpha=1 - decay)


for step in range(40):
    x = torch.randn(32, 8)
    view1, view2 = x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x)
    with torch.no_grad():
        z_t = target(view2)
    loss = nn.functional.mse_loss(online(view1), z_t)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    ema_update()
