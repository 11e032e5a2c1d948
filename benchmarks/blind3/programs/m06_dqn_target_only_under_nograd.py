"""DQN where only the bootstrap target is computed under no_grad."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

policy_net = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
target_net = copy.deepcopy(policy_net)
optimizer = torch.optim.Adam(policy_net.parameters(), lr=1e-3)
for step in range(4):
    states, next_states = torch.randn(32, 4), torch.randn(32, 4)
    actions, rewards, dones = torch.randint(0, 2, (32,)), torch.rand(32), torch.zeros(32)
    q_values = policy_net(states).gather(1, actions.unsqueeze(1)).squeeze(1)
    with torch.no_grad():
        next_q = target_net(next_states).max(1).values
        targets = rewards + 0.99 * next_q * (1 - dones)
    loss = F.smooth_l1_loss(q_values, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
