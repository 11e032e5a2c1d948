"""First-order meta-learning on sine regression tasks with a hand-written inner loop."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

meta_model = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 1))
meta_opt = torch.optim.Adam(meta_model.parameters(), lr=1e-3)
inner_lr = 0.01


def sample_task():
    amp, phase = torch.rand(1) * 4 + 1, torch.rand(1) * 3
    x = torch.rand(10, 1) * 10 - 5
    return x, amp * torch.sin(x + phase)


def adapt(model, x, y, steps=1):
    fast = copy.deepcopy(model)
    for _ in range(steps):
        loss = F.mse_loss(fast(x), y)
        grads = torch.autograd.grad(loss, fast.parameters())
        for p, g in zip(fast.parameters(), grads):
            p.sub_(inner_lr * g)
    return fast


for it in range(3):
    meta_opt.zero_grad()
    for _ in range(2):
        x, y = sample_task()
        fast = adapt(meta_model, x[:5], y[:5])
        query_loss = F.mse_loss(fast(x[5:]), y[5:])
        query_loss.backward()
        for p, fp in zip(meta_model.parameters(), fast.parameters()):
            p.grad = fp.grad if p.grad is None else p.grad + fp.grad
    meta_opt.step()
