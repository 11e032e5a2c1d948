"""Advantage actor-critic on a toy bandit-like environment with an n-step rollout buffer."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

torch.manual_seed(0)
OBS, ACTIONS = 6, 3


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh())
        self.pi = nn.Linear(32, ACTIONS)
        self.v = nn.Linear(32, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


class ToyEnv:
    def reset(self):
        self.state = torch.randn(OBS)
        return self.state

    def step(self, action):
        reward = float(action == int(self.state[:ACTIONS].argmax()))
        self.state = torch.randn(OBS)
        return self.state, reward


@torch.no_grad()
def collect_rollout(net, env, obs, n_steps=16):
    log_probs, values, rewards = [], [], []
    for _ in range(n_steps):
        logits, value = net(obs)
        dist = Categorical(logits=logits)
        action = dist.sample()
        obs, reward = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        values.append(value)
        rewards.append(reward)
    return obs, torch.stack(log_probs), torch.stack(values), torch.tensor(rewards)


def discounted(rewards, gamma=0.9):
    out, running = torch.zeros_like(rewards), 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


net = ActorCritic()
opt = torch.optim.Adam(net.parameters(), lr=3e-3)
env = ToyEnv()
obs = env.reset()
for update in range(20):
    obs, log_probs, values, rewards = collect_rollout(net, env, obs)
    returns = discounted(rewards)
    advantages = returns - values
    loss = -(log_probs * advantages).mean() + 0.5 * F.mse_loss(values, returns)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if update % 5 == 0:
        print(update, rewards.mean().item())
