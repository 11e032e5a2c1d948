# Advantage actor-critic with separate actor and critic; the critic's values are collected as
# Python floats during the rollout and turned back into a tensor for the critic loss.
import torch
import torch.nn as nn
from torch.distributions import Categorical

torch.manual_seed(0)

actor = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 1))
actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-2)

for episode in range(30):
    states = torch.randn(16, 4)
    log_probs, values, rewards = [], [], []
    for s in states:
        dist = Categorical(logits=actor(s))
        a = dist.sample()
        log_probs.append(dist.log_prob(a))
        values.append(critic(s).item())
        rewards.append(float(a.item() == int(s[1] > 0)))
    returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
    values = torch.tensor(values)
    advantage = returns - values
    actor_loss = -(torch.stack(log_probs) * advantage).mean()
    critic_loss = advantage.pow(2).mean()

    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
    print(episode, sum(rewards))
