"""ALBERT-style weight sharing done on purpose (one layer applied N times), plus actor-critic with
two optimizers each stepped after its own loss, and a value head squeezed to the target's shape."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class SharedDepthEncoder(nn.Module):
    def __init__(self, d=32, n_repeats=4):
        super().__init__()
        self.layer = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d), nn.GELU())
        self.n_repeats = n_repeats
        self.adapters = nn.ModuleList([nn.Linear(d, d) for _ in range(n_repeats)])

    def forward(self, x):
        for adapter in self.adapters:
            x = x + adapter(self.layer(x))
        return x


if __name__ == "__main__":
    torch.manual_seed(0)
    encoder = SharedDepthEncoder()
    actor = nn.Sequential(encoder, nn.Linear(32, 3))
    critic = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 1))
    actor_opt = torch.optim.Adam(actor.parameters(), lr=5e-4)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    for it in range(10):
        obs = torch.randn(128, 32)
        dist = Categorical(logits=actor(obs))
        actions = dist.sample()
        returns = (actions == obs[:, :3].argmax(-1)).float()
        values = critic(obs).squeeze(-1)
        critic_loss = F.mse_loss(values, returns)
        critic_opt.zero_grad()
        critic_loss.backward()
        critic_opt.step()
        advantage = returns - values.detach()
        actor_loss = -(dist.log_prob(actions) * advantage).mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()
    print(actor_loss.item(), critic_loss.item())
