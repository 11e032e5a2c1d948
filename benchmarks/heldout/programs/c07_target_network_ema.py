# heldout: expect=none
# Correct regression with an EMA target network under no_grad, reduction='sum', and .item() logging.
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)

online = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 1))
target = copy.deepcopy(online)
for p in target.parameters():
    p.requires_grad_(False)
optimizer = torch.optim.SGD(online.parameters(), lr=1e-3)
criterion = nn.MSELoss(reduction="sum")
x = torch.randn(256, 6)
y = x[:, :2].sum(1, keepdim=True) * 3


@torch.no_grad()
def ema_update(tau=0.99):
    for p_t, p_o in zip(target.parameters(), online.parameters()):
        p_t.mul_(tau).add_(p_o, alpha=1 - tau)


history = []
for step in range(60):
    idx = torch.randint(0, 256, (32,))
    pred = online(x[idx])
    with torch.no_grad():
        smooth = target(x[idx])
    loss = criterion(pred, y[idx]) + 0.1 * criterion(pred, smooth)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    ema_update()
    history.append(loss.item())
    if step % 20 == 0:
        print(step, history[-1])
