"""DQN-style TD loss and a regression head, with the (N, 1) outputs matched to their targets."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
OBS, ACTIONS = 4, 3


class QNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 64), nn.ReLU())
        self.q = nn.Linear(64, ACTIONS)
        self.reward_head = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.q(h), self.reward_head(h)


def td_loss(net, target_net, batch, gamma=0.95):
    obs, actions, rewards, next_obs, dones = batch
    q, _ = net(obs)
    q_sa = q.gather(1, actions.unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        next_q, _ = target_net(next_obs)
        target = rewards + gamma * (1 - dones) * next_q.max(1).values
    return F.smooth_l1_loss(q_sa, target)


def reward_loss(net, obs, rewards):
    _, pred = net(obs)
    return F.mse_loss(pred, rewards.unsqueeze(1))


def sample(bs=32):
    obs = torch.randn(bs, OBS)
    actions = torch.randint(0, ACTIONS, (bs,))
    rewards = (obs[:, 0] * (actions == 1).float()).clamp(min=0)
    return obs, actions, rewards, torch.randn(bs, OBS), (torch.rand(bs) < 0.05).float()


net, target_net = QNet(), QNet()
target_net.load_state_dict(net.state_dict())
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for it in range(60):
    batch = sample()
    loss = td_loss(net, target_net, batch) + 0.5 * reward_loss(net, batch[0], batch[2])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 20 == 0:
        target_net.load_state_dict(net.state_dict())
        print(it, round(loss.item(), 4))
