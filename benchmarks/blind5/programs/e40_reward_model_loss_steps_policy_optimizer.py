"""Toy RLHF-like loop: a reward model learns pairwise preferences, a policy is trained against it."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, ACTIONS = 8, 4


class RewardModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(D + ACTIONS, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, state, action_onehot):
        return self.net(torch.cat([state, action_onehot], -1)).squeeze(-1)


policy = nn.Sequential(nn.Linear(D, 32), nn.ReLU(), nn.Linear(32, ACTIONS))
reward_model = RewardModel()
policy_opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
reward_opt = torch.optim.Adam(reward_model.parameters(), lr=1e-3)


def preference_batch(bs=32):
    s = torch.randn(bs, D)
    a, b = torch.randint(0, ACTIONS, (2, bs))
    true_pref = (s[:, a.clamp(max=D - 1)].diagonal() > s[:, b.clamp(max=D - 1)].diagonal()).float()
    return s, F.one_hot(a, ACTIONS).float(), F.one_hot(b, ACTIONS).float(), true_pref


def reward_model_phase():
    s, a, b, pref = preference_batch()
    margin = reward_model(s, a) - reward_model(s, b)
    loss = F.binary_cross_entropy_with_logits(margin, pref)
    reward_opt.zero_grad()
    loss.backward()
    policy_opt.step()
    return loss.item()


def policy_phase(bs=32):
    s = torch.randn(bs, D)
    dist = torch.distributions.Categorical(logits=policy(s))
    action = dist.sample()
    with torch.no_grad():
        r = reward_model(s, F.one_hot(action, ACTIONS).float())
    loss = -(dist.log_prob(action) * (r - r.mean())).mean()
    policy_opt.zero_grad()
    loss.backward()
    policy_opt.step()
    return r.mean().item()


for it in range(30):
    rm_loss = reward_model_phase()
    mean_r = policy_phase()
    if it % 10 == 0:
        print(it, round(rm_loss, 4), round(mean_r, 4))
