"""PPO update on a toy bandit-like environment with a shared actor-critic."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=8, n_actions=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh())
        self.pi = nn.Linear(64, n_actions)
        self.v = nn.Linear(64, 1)

    def forward(self, obs):
        h = self.body(obs)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


def collect(policy, n=256):
    obs = torch.randn(n, 8)
    with torch.no_grad():
        dist, values = policy(obs)
        actions = dist.sample()
        logp = dist.log_prob(actions)
    rewards = (actions == obs[:, :4].argmax(-1)).float()
    adv = rewards - values
    return obs, actions, logp, rewards, (adv - adv.mean()) / (adv.std() + 1e-8)


def ppo_losses(policy, obs, actions, old_logp, returns, adv, clip=0.2):
    dist, values = policy(obs)
    ratio = (dist.log_prob(actions) - old_logp).exp()
    surr1 = ratio * adv
    surr2 = ratio.clamp(1 - clip, 1 + clip) * adv
    policy_loss = -torch.min(surr1, surr2)
    value_loss = F.mse_loss(values, returns)
    return policy_loss, value_loss, dist.entropy().mean()


if __name__ == "__main__":
    torch.manual_seed(0)
    policy = ActorCritic()
    opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
    for it in range(5):
        obs, actions, logp, returns, adv = collect(policy)
        for _ in range(4):
            pl, vl, ent = ppo_losses(policy, obs, actions, logp, returns, adv)
            loss = pl + 0.5 * vl - 0.01 * ent
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            opt.step()
        print(it, returns.mean().item())
