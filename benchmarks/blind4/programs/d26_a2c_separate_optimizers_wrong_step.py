"""Advantage actor-critic with separate actor and critic networks and optimizers."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


def mlp(d_in, d_out, hidden=64):
    return nn.Sequential(nn.Linear(d_in, hidden), nn.Tanh(), nn.Linear(hidden, d_out))


class A2C:
    def __init__(self, obs_dim=6, n_actions=3, gamma=0.97):
        self.actor = mlp(obs_dim, n_actions)
        self.critic = mlp(obs_dim, 1)
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=7e-4)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        self.gamma = gamma

    def returns(self, rewards):
        out, g = [], torch.zeros(rewards.shape[1])
        for r in reversed(rewards):
            g = r + self.gamma * g
            out.append(g)
        return torch.stack(out[::-1])

    def update(self, obs, actions, rewards):
        rets = self.returns(rewards).flatten()
        obs, actions = obs.flatten(0, 1), actions.flatten()
        values = self.critic(obs).squeeze(-1)
        advantage = (rets - values).detach()

        critic_loss = F.mse_loss(values, rets)
        self.critic_optim.zero_grad()
        critic_loss.backward()
        self.critic_optim.step()

        dist = Categorical(logits=self.actor(obs))
        actor_loss = -(dist.log_prob(actions) * advantage).mean() - 0.01 * dist.entropy().mean()
        self.actor_optim.zero_grad()
        actor_loss.backward()
        self.critic_optim.step()
        return actor_loss.item(), critic_loss.item()


def rollout(agent, T=16, n_envs=8):
    obs = torch.randn(T, n_envs, 6)
    with torch.no_grad():
        actions = Categorical(logits=agent.actor(obs)).sample()
    rewards = (actions == obs[..., :3].argmax(-1)).float()
    return obs, actions, rewards


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = A2C()
    for it in range(10):
        print(it, agent.update(*rollout(agent)))
