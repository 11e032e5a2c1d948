"""Gradient accumulation over 8 micro-batches, on a loader of 6 batches per epoch: the step and the zero_grad
sit under `if (i + 1) % accum_steps == 0`, which never holds, so the optimizer never steps."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
true_w = torch.randn(8, 1)
x_all = torch.randn(192, 8)
loader = DataLoader(TensorDataset(x_all, x_all @ true_w), batch_size=32)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
accum_steps = 8

for epoch in range(8):
    total = 0.0
    for i, (x, y) in enumerate(loader):
        loss = nn.functional.mse_loss(model(x), y) / accum_steps
        loss.backward()
        total += loss.item() * accum_steps
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    print(f"epoch {epoch}: loss {total / len(loader):.4f}")
