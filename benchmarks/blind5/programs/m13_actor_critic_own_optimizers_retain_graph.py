"""Actor-critic with separate optimizers; one shared trunk output feeds both losses (retain_graph)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

torch.manual_seed(0)
OBS, ACTIONS = 5, 3

trunk = nn.Sequential(nn.Linear(OBS, 32), nn.Tanh())
actor = nn.Linear(32, ACTIONS)
critic = nn.Linear(32, 1)
actor_opt = torch.optim.Adam(list(trunk.parameters()) + list(actor.parameters()), lr=1e-3)
critic_opt = torch.optim.Adam(critic.parameters(), lr=3e-3)


def batch(bs=64):
    obs = torch.randn(bs, OBS)
    return obs


for it in range(40):
    obs = batch()
    h = trunk(obs)
    dist = Categorical(logits=actor(h))
    action = dist.sample()
    reward = (action == obs[:, :ACTIONS].argmax(1)).float()
    value = critic(h).squeeze(-1)
    advantage = (reward - value).detach()

    critic_loss = F.mse_loss(value, reward)
    critic_opt.zero_grad()
    critic_loss.backward(retain_graph=True)
    critic_opt.step()

    actor_loss = -(dist.log_prob(action) * advantage).mean() - 0.01 * dist.entropy().mean()
    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()
    if it % 10 == 0:
        print(it, round(reward.mean().item(), 3), round(critic_loss.item(), 4))
