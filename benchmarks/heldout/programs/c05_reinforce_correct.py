# heldout: expect=none
# Correct REINFORCE: log-probs of one episode kept as tensors, summed, backpropagated once, then cleared.
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)

policy = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
saved_log_probs, rewards = [], []


def finish_episode(gamma=0.99):
    returns, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        returns.insert(0, g)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = torch.stack([-lp * r for lp, r in zip(saved_log_probs, returns)]).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    del saved_log_probs[:]
    del rewards[:]


for episode in range(40):
    for t in range(20):
        obs = torch.randn(4)
        dist = Categorical(logits=policy(obs))
        action = dist.sample()
        saved_log_probs.append(dist.log_prob(action))
        rewards.append(1.0 if action.item() == int(obs[0] > 0) else 0.0)
    total_reward = sum(rewards)
    finish_episode()
    if episode % 10 == 0:
        print(episode, total_reward)
