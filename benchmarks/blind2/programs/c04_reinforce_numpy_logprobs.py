# REINFORCE on a toy bandit-like environment; log-probs go through numpy to be normalised.
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)
np.random.seed(0)

policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
gamma = 0.99


def run_episode(T=20):
    log_probs, rewards = [], []
    state = torch.randn(4)
    for _ in range(T):
        dist = Categorical(logits=policy(state))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        rewards.append(1.0 if action.item() == int(state[0] > 0) else 0.0)
        state = torch.randn(4)
    return log_probs, rewards


def discounted(rewards):
    out, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        out.insert(0, g)
    out = np.array(out)
    return (out - out.mean()) / (out.std() + 1e-8)


for episode in range(30):
    log_probs, rewards = run_episode()
    returns = discounted(rewards)
    lp = torch.stack(log_probs).detach().numpy()
    policy_loss = -torch.from_numpy(lp * returns).float().sum()
    optimizer.zero_grad()
    policy_loss.backward()
    optimizer.step()
    print(f"episode {episode} return {sum(rewards):.1f}")
