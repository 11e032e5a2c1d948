# Advantage actor-critic: critic values kept as tensors, the advantage detached for the actor,
# floats only for logging.
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
    log_probs, values, rewards, logged = [], [], [], []
    for s in states:
        dist = Categorical(logits=actor(s))
        a = dist.sample()
        log_probs.append(dist.log_prob(a))
        v = critic(s).squeeze(-1)
        values.append(v)
        logged.append(v.item())
        rewards.append(float(a.item() == int(s[1] > 0)))
    returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
    values = torch.stack(values)
    advantage = returns - values
    actor_loss = -(torch.stack(log_probs) * advantage.detach()).mean()
    critic_loss = advantage.pow(2).mean()

    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()
    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()
    print(episode, sum(rewards), sum(logged) / len(logged))
