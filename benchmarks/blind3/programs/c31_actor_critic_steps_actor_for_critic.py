"""Advantage actor-critic with separate actor and critic optimizers."""
import torch
import torch.nn as nn
import torch.nn.functional as F

actor = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 1))
actor_optim = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_optim = torch.optim.Adam(critic.parameters(), lr=5e-3)
gamma = 0.99

for episode in range(3):
    states = torch.randn(10, 4)
    rewards = torch.rand(10)
    dist = torch.distributions.Categorical(logits=actor(states))
    actions = dist.sample()
    values = critic(states).squeeze(-1)
    returns = torch.zeros(10)
    running = 0.0
    for t in reversed(range(10)):
        running = rewards[t] + gamma * running
        returns[t] = running
    advantage = returns - values

    critic_loss = advantage.pow(2).mean()
    critic_optim.zero_grad()
    critic_loss.backward()
    actor_optim.step()

    actor_loss = -(dist.log_prob(actions) * advantage.detach()).mean()
    actor_optim.zero_grad()
    actor_loss.backward()
    actor_optim.step()
