"""REINFORCE on a small corridor environment written here: walk right to the goal, discounted returns, Categorical policy."""
import torch
from torch import nn


class Corridor:
    """Positions 0..length-1; action 1 steps right, 0 steps left; reward 1 at the right end."""

    def __init__(self, length=6, horizon=12):
        self.length, self.horizon = length, horizon

    def reset(self):
        self.pos, self.t = 0, 0
        return self.observe()

    def observe(self):
        return nn.functional.one_hot(torch.tensor(self.pos), self.length).float()

    def step(self, action):
        self.pos = min(max(self.pos + (1 if action == 1 else -1), 0), self.length - 1)
        self.t += 1
        done = self.pos == self.length - 1 or self.t >= self.horizon
        return self.observe(), (1.0 if self.pos == self.length - 1 else -0.01), done


torch.manual_seed(0)
env = Corridor()
policy = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
gamma = 0.99
for episode in range(80):
    state, done = env.reset(), False
    log_probs, rewards = [], []
    while not done:
        dist = torch.distributions.Categorical(logits=policy(state))
        action = dist.sample()
        state, reward, done = env.step(action.item())
        log_probs.append(dist.log_prob(action))
        rewards.append(reward)
    returns, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        returns.insert(0, g)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8) if len(returns) > 1 else returns
    loss = -(torch.stack(log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if episode % 20 == 0:
        print(f"episode {episode} length {len(rewards)}")
