# heldout: expect=GD101 line=26 alt_lines=45 static=yes
# REINFORCE on a synthetic contextual bandit; log-probabilities stored as Python floats.
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)


class Policy(nn.Module):
    def __init__(self, n_obs=4, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_obs, 32), nn.ReLU(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return torch.softmax(self.net(obs), dim=-1)


def run_episode(policy, length=20):
    log_probs, rewards = [], []
    for _ in range(length):
        obs = torch.randn(4)
        probs = policy(obs)
        dist = Categorical(probs)
        action = dist.sample()
        log_probs.append(dist.log_prob(action).item())
        rewards.append(1.0 if action.item() == int(obs[0] > 0) else 0.0)
    return log_probs, rewards


def discounted(rewards, gamma=0.99):
    out, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        out.insert(0, g)
    ret = torch.tensor(out)
    return (ret - ret.mean()) / (ret.std() + 1e-8)


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
for episode in range(30):
    log_probs, rewards = run_episode(policy)
    returns = discounted(rewards)
    policy_loss = -(torch.tensor(log_probs) * returns).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    optimizer.step()
    if episode % 10 == 0:
        print(episode, sum(rewards))
