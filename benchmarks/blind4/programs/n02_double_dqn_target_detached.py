"""Double DQN update: the target network runs without gradients, online net picks the action."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class DuelingQ(nn.Module):
    def __init__(self, obs_dim=6, n_actions=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU())
        self.value = nn.Linear(64, 1)
        self.adv = nn.Linear(64, n_actions)

    def forward(self, x):
        h = self.body(x)
        a = self.adv(h)
        return self.value(h) + a - a.mean(-1, keepdim=True)


def td_targets(online, target_net, rew, obs2, done, gamma=0.99):
    next_actions = online(obs2).argmax(-1, keepdim=True).detach()
    with torch.no_grad():
        next_q = target_net(obs2).gather(1, next_actions).squeeze(1)
    return rew + gamma * (1 - done) * next_q


if __name__ == "__main__":
    torch.manual_seed(0)
    online = DuelingQ()
    target_net = copy.deepcopy(online)
    for p in target_net.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(online.parameters(), lr=5e-4)
    for step in range(40):
        obs, obs2 = torch.randn(64, 6), torch.randn(64, 6)
        act = torch.randint(0, 3, (64,))
        rew = (act == obs[:, :3].argmax(-1)).float()
        done = (torch.rand(64) < 0.1).float()
        q = online(obs).gather(1, act.unsqueeze(1)).squeeze(1)
        loss = F.smooth_l1_loss(q, td_targets(online, target_net, rew, obs2, done))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            target_net.load_state_dict(online.state_dict())
    print(loss.item())
