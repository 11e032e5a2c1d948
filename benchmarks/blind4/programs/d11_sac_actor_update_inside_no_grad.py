"""Soft actor-critic update on random transitions (continuous actions)."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal


class Actor(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, 2 * act_dim))

    def forward(self, obs):
        mu, log_std = self.net(obs).chunk(2, -1)
        dist = Normal(mu, log_std.clamp(-5, 2).exp())
        u = dist.rsample()
        a = torch.tanh(u)
        logp = (dist.log_prob(u) - torch.log(1 - a.pow(2) + 1e-6)).sum(-1)
        return a, logp


class Critic(nn.Module):
    def __init__(self, obs_dim, act_dim):
        super().__init__()
        self.q = nn.Sequential(nn.Linear(obs_dim + act_dim, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, obs, act):
        return self.q(torch.cat([obs, act], -1)).squeeze(-1)


class SAC:
    def __init__(self, obs_dim=6, act_dim=2, gamma=0.99, alpha=0.2, tau=0.005):
        self.actor = Actor(obs_dim, act_dim)
        self.critic = Critic(obs_dim, act_dim)
        self.critic_targ = copy.deepcopy(self.critic)
        self.actor_opt = torch.optim.Adam(self.actor.parameters(), lr=3e-4)
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=3e-4)
        self.gamma, self.alpha, self.tau = gamma, alpha, tau

    def update(self, obs, act, rew, obs2, done):
        with torch.no_grad():
            a2, logp2 = self.actor(obs2)
            target = rew + self.gamma * (1 - done) * (self.critic_targ(obs2, a2) - self.alpha * logp2)

            a_pi, logp_pi = self.actor(obs)
            actor_loss = (self.alpha * logp_pi - self.critic(obs, a_pi)).mean()

        critic_loss = F.mse_loss(self.critic(obs, act), target)
        self.critic_opt.zero_grad()
        critic_loss.backward()
        self.critic_opt.step()

        self.actor_opt.zero_grad()
        actor_loss.backward()
        self.actor_opt.step()

        with torch.no_grad():
            for p, pt in zip(self.critic.parameters(), self.critic_targ.parameters()):
                pt.mul_(1 - self.tau).add_(self.tau * p)
        return critic_loss.item(), actor_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = SAC()
    for step in range(10):
        obs, obs2 = torch.randn(64, 6), torch.randn(64, 6)
        act = torch.rand(64, 2) * 2 - 1
        rew, done = -obs.pow(2).sum(-1), torch.zeros(64)
        print(agent.update(obs, act, rew, obs2, done))
