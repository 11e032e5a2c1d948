"""PPO-style update: the critic fits the returns with its own optimizer."""
import torch
import torch.nn as nn
import torch.nn.functional as F

obs_dim, n_actions = 4, 2
actor = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))
critic = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))
actor_opt = torch.optim.Adam(actor.parameters(), lr=3e-4)
critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)

states = torch.randn(64, obs_dim)
actions = torch.randint(0, n_actions, (64,))
returns = torch.randn(64)
with torch.no_grad():
    old_logp = torch.distributions.Categorical(logits=actor(states)).log_prob(actions)

for epoch in range(3):
    dist = torch.distributions.Categorical(logits=actor(states))
    values = torch.tensor(critic(states)).squeeze(-1)
    adv = (returns - values).detach()
    ratio = torch.exp(dist.log_prob(actions) - old_logp)
    surr = torch.min(ratio * adv, torch.clamp(ratio, 0.8, 1.2) * adv)
    actor_loss = -surr.mean()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()

    value_loss = F.mse_loss(values, returns)
    critic_opt.zero_grad()
    value_loss.backward()
    critic_opt.step()
