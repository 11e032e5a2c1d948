"""DQN with a target network and a replay buffer sampled in batches."""
import copy
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

policy_net = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
target_net = copy.deepcopy(policy_net)
optimizer = torch.optim.Adam(policy_net.parameters(), lr=1e-3)
gamma = 0.99
buffer = [(torch.randn(4), random.randrange(2), random.random(), torch.randn(4), False) for _ in range(200)]


def sample(batch_size=32):
    batch = random.sample(buffer, batch_size)
    s, a, r, s2, d = zip(*batch)
    return (torch.stack(s), torch.tensor(a), torch.tensor(r), torch.stack(s2), torch.tensor(d, dtype=torch.float32))


for step in range(5):
    states, actions, rewards, next_states, dones = sample()
    with torch.no_grad():
        q_values = policy_net(states).gather(1, actions.unsqueeze(1)).squeeze(1)
        next_q = target_net(next_states).max(1).values
        targets = rewards + gamma * next_q * (1 - dones)
    loss = F.smooth_l1_loss(q_values, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 2 == 0:
        target_net.load_state_dict(policy_net.state_dict())
