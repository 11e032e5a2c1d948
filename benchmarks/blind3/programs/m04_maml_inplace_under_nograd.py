"""Reptile-style meta-learning: the meta update moves weights in place under no_grad."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

meta_model = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 1))
meta_lr, inner_lr = 0.1, 0.02
for it in range(3):
    amp = torch.rand(1) * 4 + 1
    x = torch.rand(10, 1) * 10 - 5
    y = amp * torch.sin(x)
    fast = copy.deepcopy(meta_model)
    inner_opt = torch.optim.SGD(fast.parameters(), lr=inner_lr)
    for _ in range(3):
        loss = F.mse_loss(fast(x), y)
        inner_opt.zero_grad()
        loss.backward()
        inner_opt.step()
    with torch.no_grad():
        for p, fp in zip(meta_model.parameters(), fast.parameters()):
            p.add_(meta_lr * (fp - p))
