"""MAML (Finn et al.) on sine regression, written as the higher-free tutorials do: each task's
inner loop adapts fast weights, its query loss is appended to `query_losses`, and the meta step
backpropagates their sum."""
import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class SineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(1, 40), nn.Linear(40, 40), nn.Linear(40, 1)

    def forward(self, x, weights=None):
        w = weights if weights is not None else [self.l1.weight, self.l1.bias, self.l2.weight,
                                                 self.l2.bias, self.l3.weight, self.l3.bias]
        x = F.relu(F.linear(x, w[0], w[1]))
        x = F.relu(F.linear(x, w[2], w[3]))
        return F.linear(x, w[4], w[5])


def task(k=10):
    amp, phase = torch.rand(1) * 4.9 + 0.1, torch.rand(1) * math.pi
    x = torch.rand(2 * k, 1) * 10 - 5
    y = amp * torch.sin(x + phase)
    return x[:k], y[:k], x[k:], y[k:]


net = SineNet()
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-3)
inner_lr, tasks = 0.01, 16

for meta_step in range(25):
    query_losses = []
    for _ in range(tasks):
        xs, ys, xq, yq = task()
        fast = list(net.parameters())
        for _ in range(2):
            grads = torch.autograd.grad(F.mse_loss(net(xs, fast), ys), fast, create_graph=True)
            fast = [w - inner_lr * g for w, g in zip(fast, grads)]
        query_losses.append(F.mse_loss(net(xq, fast), yq))
    meta_opt.zero_grad()
    meta_loss = torch.stack(query_losses).sum() / tasks
    meta_loss.backward()
    meta_opt.step()
    if meta_step % 5 == 0:
        print(f"meta step {meta_step}: {meta_loss.item():.3f}")
