"""PPO update with per-sample importance weights (reduction='none', then weighted mean)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, obs_dim=8, n_actions=4):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, n_actions))
        self.v = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, obs):
        return Categorical(logits=self.pi(obs)), self.v(obs).squeeze(-1)


def ppo_loss(policy, obs, actions, old_logp, returns, adv, weights, clip=0.2):
    dist, values = policy(obs)
    ratio = (dist.log_prob(actions) - old_logp).exp()
    per_sample = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv)
    v_per_sample = F.mse_loss(values, returns, reduction="none")
    policy_loss = (per_sample * weights).sum() / weights.sum()
    value_loss = (v_per_sample * weights).sum() / weights.sum()
    return policy_loss + 0.5 * value_loss - 0.01 * dist.entropy().mean()


if __name__ == "__main__":
    torch.manual_seed(0)
    policy = Policy()
    opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
    for it in range(5):
        obs = torch.randn(256, 8)
        with torch.no_grad():
            dist, values = policy(obs)
            actions = dist.sample()
            old_logp = dist.log_prob(actions)
        returns = (actions == obs[:, :4].argmax(-1)).float()
        adv = returns - values
        weights = torch.rand(256) + 0.5
        for _ in range(3):
            loss = ppo_loss(policy, obs, actions, old_logp, returns, adv, weights)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(it, loss.item())
