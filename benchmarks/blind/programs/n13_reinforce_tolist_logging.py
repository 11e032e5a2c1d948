# Correct: REINFORCE; log-probs stacked as tensors, .tolist() only for the printed summary.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return torch.distributions.Categorical(logits=self.net(obs))


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
        rewards.append(1.0 if (obs[0] > 0) == (action.item() == 1) else 0.0)
        obs = torch.randn(4)
    returns = discount(rewards)
    lp = torch.stack(log_probs)
    policy_loss = -(lp * returns).sum()
    optimizer.zero_grad()
    policy_loss.backward()
    optimizer.step()
    first = lp[:3].tolist()
    print(f"episode {episode} return {sum(rewards):.1f} loss {policy_loss.item():.4f} lp0 {first[0]:.3f}")
