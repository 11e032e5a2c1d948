"""Advantage actor-critic with a shared trunk and one optimizer: policy loss plus value loss plus entropy bonus."""
import torch
from torch import nn


class ActorCritic(nn.Module):
    def __init__(self, obs=4, actions=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs, 64), nn.Tanh())
        self.pi = nn.Linear(64, actions)
        self.v = nn.Linear(64, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.pi(h), self.v(h).squeeze(-1)


torch.manual_seed(0)
model = ActorCritic()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for update in range(80):
    states = torch.randn(32, 4)
    logits, values = model(states)
    dist = torch.distributions.Categorical(logits=logits)
    actions = dist.sample()
    rewards = (actions == states[:, :3].argmax(1)).float() + 0.1 * torch.randn(32)
    advantage = rewards - values
    policy_loss = -(dist.log_prob(actions) * advantage.detach()).mean()
    value_loss = 0.5 * advantage.pow(2).mean()
    loss = policy_loss + value_loss - 0.01 * dist.entropy().mean()
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
