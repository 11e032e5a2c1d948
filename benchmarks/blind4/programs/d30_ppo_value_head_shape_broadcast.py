"""GAE-based value-function fitting for a PPO critic on synthetic rollouts."""
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, obs_dim=5):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, obs):
        return self.v(obs)


def gae(rewards, values, dones, gamma=0.99, lam=0.95):
    adv = torch.zeros_like(rewards)
    last = 0.0
    for t in reversed(range(len(rewards))):
        next_v = values[t + 1] if t + 1 < len(rewards) else 0.0
        delta = rewards[t] + gamma * next_v * (1 - dones[t]) - values[t]
        last = delta + gamma * lam * (1 - dones[t]) * last
        adv[t] = last
    return adv, adv + values


def value_loss(critic, obs, returns, old_values, clip=0.2):
    values = critic(obs)
    clipped = old_values + (values - old_values).clamp(-clip, clip)
    return 0.5 * torch.max((values - returns) ** 2, (clipped - returns) ** 2).mean()


if __name__ == "__main__":
    torch.manual_seed(0)
    critic = Critic()
    opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for it in range(5):
        obs = torch.randn(128, 5)
        rewards = obs[:, 0].clamp(min=0)
        dones = (torch.rand(128) < 0.05).float()
        with torch.no_grad():
            old_values = critic(obs).squeeze(-1)
        adv, returns = gae(rewards, old_values, dones)
        for epoch in range(4):
            loss = value_loss(critic, obs, returns, old_values)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(it, loss.item())
