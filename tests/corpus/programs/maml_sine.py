"""MAML on sine regression: fast weights from inner SGD steps with create_graph; the outer loss goes through them."""
import math

import torch
from torch import nn
from torch.func import functional_call


def sample_tasks(n, k):
    amplitude = torch.rand(n, 1, 1) * 4.9 + 0.1
    phase = torch.rand(n, 1, 1) * math.pi
    x = torch.rand(n, 2 * k, 1) * 10 - 5
    y = amplitude * torch.sin(x + phase)
    return x[:, :k], y[:, :k], x[:, k:], y[:, k:]


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))
meta_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
inner_lr, inner_steps, tasks_per_batch, shots = 0.01, 2, 12, 10
loss_fn = nn.MSELoss()

for meta_step in range(30):
    x_support, y_support, x_query, y_query = sample_tasks(tasks_per_batch, shots)
    meta_optimizer.zero_grad()
    outer_losses = []
    for t in range(tasks_per_batch):
        fast = dict(model.named_parameters())
        for _ in range(inner_steps):
            inner_loss = loss_fn(functional_call(model, fast, (x_support[t],)), y_support[t])
            grads = torch.autograd.grad(inner_loss, list(fast.values()), create_graph=True)
            fast = {name: w - inner_lr * g for (name, w), g in zip(fast.items(), grads)}
        outer_losses.append(loss_fn(functional_call(model, fast, (x_query[t],)), y_query[t]))
    meta_loss = torch.stack(outer_losses).mean()
    meta_loss.backward()
    meta_optimizer.step()
    if meta_step % 10 == 0:
        print(f"meta step {meta_step}: query loss {meta_loss.item():.3f}")
