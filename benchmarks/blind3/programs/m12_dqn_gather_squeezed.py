"""Double DQN where the gathered Q-values are squeezed to match the targets."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

online = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
target = copy.deepcopy(online)
optimizer = torch.optim.Adam(online.parameters(), lr=5e-4)


def td_loss(s, a, r, s2, done, gamma=0.99):
    q_sa = online(s).gather(1, a.unsqueeze(-1)).squeeze(-1)
    with torch.no_grad():
        best = online(s2).argmax(dim=1, keepdim=True)
        y = r + gamma * (1.0 - done) * target(s2).gather(1, best).squeeze(-1)
    return F.smooth_l1_loss(q_sa, y)


for step in range(4):
    loss = td_loss(torch.randn(32, 4), torch.randint(0, 2, (32,)), torch.rand(32), torch.randn(32, 4), torch.zeros(32))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
