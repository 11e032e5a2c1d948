"""DQN with a target network: targets under no_grad, Huber loss, periodic hard target update."""
import copy

import torch
from torch import nn

torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
target = copy.deepcopy(policy)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
gamma = 0.99
states = torch.randn(512, 4)
for step in range(60):
    idx = torch.randint(0, 500, (32,))
    s, s2 = states[idx], states[idx + 1]
    a = torch.randint(0, 2, (32, 1))
    r = s[:, :1].sign()
    done = torch.zeros(32, 1)
    q = policy(s).gather(1, a)
    with torch.no_grad():
        q_next = target(s2).max(1, keepdim=True).values
        y = r + gamma * (1 - done) * q_next
    loss = nn.functional.smooth_l1_loss(q, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 20 == 0:
        target.load_state_dict(policy.state_dict())
        print(f"step {step} loss {loss.item():.4f}")
