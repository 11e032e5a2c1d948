# REINFORCE on a toy bandit-like environment; log-probs collected as Python numbers (forum, 2024).
import torch
import torch.nn as nn

torch.manual_seed(0)


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return torch.distributions.Categorical(logits=self.net(obs))


def env_step(obs, action):
    reward = 1.0 if (obs[0] > 0) == (action == 1) else 0.0
    return torch.randn(4), reward


def discount(rewards, gamma=0.99):
    out, running = [], 0.0
    for r in reversed(rewards):
        running = r + gamma * running
        out.insert(0, running)
    returns = torch.tensor(out)
    return (returns - returns.mean()) / (returns.std() + 1e-8)


policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)

for episode in range(20):
    obs = torch.randn(4)
    log_probs, rewards = [], []
    for t in range(16):
        dist = policy(obs)
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        obs, reward = env_step(obs, action.item())
        rewards.append(reward)
    returns = discount(rewards)
    lp = torch.stack(log_probs).tolist()
    policy_loss = -(torch.tensor(lp, requires_grad=True) * returns).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    optimizer.step()
    print(f"episode {episode} return {sum(rewards):.1f} loss {policy_loss.item():.4f}")
