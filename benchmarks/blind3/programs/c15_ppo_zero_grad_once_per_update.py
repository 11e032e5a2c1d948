"""PPO update over several epochs of shuffled minibatches."""
import torch
import torch.nn as nn

policy = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 3))
value_fn = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 1))
params = list(policy.parameters()) + list(value_fn.parameters())
optimizer = torch.optim.Adam(params, lr=3e-4)
clip_eps, n_epochs, mb_size = 0.2, 3, 16

obs = torch.randn(64, 6)
acts = torch.randint(0, 3, (64,))
rets = torch.randn(64)
with torch.no_grad():
    old_logp = torch.distributions.Categorical(logits=policy(obs)).log_prob(acts)
    adv = rets - value_fn(obs).squeeze(-1)


def ppo_update():
    optimizer.zero_grad()
    for _ in range(n_epochs):
        perm = torch.randperm(obs.size(0))
        for start in range(0, obs.size(0), mb_size):
            idx = perm[start:start + mb_size]
            dist = torch.distributions.Categorical(logits=policy(obs[idx]))
            ratio = (dist.log_prob(acts[idx]) - old_logp[idx]).exp()
            pg = -torch.min(ratio * adv[idx], ratio.clamp(1 - clip_eps, 1 + clip_eps) * adv[idx]).mean()
            vf = (value_fn(obs[idx]).squeeze(-1) - rets[idx]).pow(2).mean()
            loss = pg + 0.5 * vf - 0.01 * dist.entropy().mean()
            loss.backward()
            nn.utils.clip_grad_norm_(params, 0.5)
            optimizer.step()


for update in range(2):
    ppo_update()
