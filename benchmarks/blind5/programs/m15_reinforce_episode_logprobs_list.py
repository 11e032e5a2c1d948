"""REINFORCE with a per-episode list of log-probabilities, summed and backpropagated once per episode."""
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
OBS, ACTIONS, GAMMA = 4, 2, 0.97


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(OBS, 32), nn.ReLU(), nn.Linear(32, ACTIONS))
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, obs):
        return self.net(obs)

    def act(self, obs):
        dist = Categorical(logits=self(obs))
        action = dist.sample()
        self.saved_log_probs.append(dist.log_prob(action))
        return action.item()


def finish_episode(policy, optimizer):
    returns, running = [], 0.0
    for r in reversed(policy.rewards):
        running = r + GAMMA * running
        returns.insert(0, running)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = torch.stack([-lp * g for lp, g in zip(policy.saved_log_probs, returns)]).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del policy.saved_log_probs[:]
    del policy.rewards[:]
    return loss.item()


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(30):
    obs = torch.randn(OBS)
    for t in range(20):
        action = policy.act(obs)
        policy.rewards.append(float(action == int(obs[0] > 0)))
        obs = torch.randn(OBS)
    total = sum(policy.rewards)
    loss = finish_episode(policy, optimizer)
    if episode % 10 == 0:
        print(episode, total, round(loss, 4))
