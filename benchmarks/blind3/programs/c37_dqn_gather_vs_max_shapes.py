"""Double DQN update with a Huber loss; Q-values gathered for the taken actions."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class QNet(nn.Module):
    def __init__(self, obs=4, actions=2):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(obs, 64), nn.ReLU(), nn.Linear(64, actions))

    def forward(self, s):
        return self.fc(s)


online = QNet()
target = copy.deepcopy(online)
optimizer = torch.optim.Adam(online.parameters(), lr=5e-4)
gamma = 0.99


def td_loss(batch):
    s, a, r, s2, done = batch
    q_sa = online(s).gather(1, a.unsqueeze(-1))
    with torch.no_grad():
        best = online(s2).argmax(dim=1, keepdim=True)
        q_next = target(s2).gather(1, best).squeeze(-1)
        y = r + gamma * (1.0 - done) * q_next
    return F.smooth_l1_loss(q_sa, y)


for step in range(4):
    batch = (torch.randn(32, 4), torch.randint(0, 2, (32,)), torch.rand(32), torch.randn(32, 4),
             (torch.rand(32) < 0.1).float())
    loss = td_loss(batch)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
