"""Actor-critic with two optimizers; the advantage is detached for the actor loss."""
import torch
from torch import nn

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 1))
opt_actor = torch.optim.Adam(actor.parameters(), lr=1e-3)
opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
for episode in range(30):
    states = torch.randn(16, 4)
    dist = torch.distributions.Categorical(logits=actor(states))
    actions = dist.sample()
    rewards = (actions == (states[:, 0] > 0).long()).float()
    values = critic(states).squeeze(-1)
    advantage = rewards - values
    actor_loss = -(dist.log_prob(actions) * advantage.detach()).mean()
    critic_loss = advantage.pow(2).mean()
    opt_actor.zero_grad()
    actor_loss.backward()
    opt_actor.step()
    opt_critic.zero_grad()
    critic_loss.backward()
    opt_critic.step()
