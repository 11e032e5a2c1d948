"""Gradient clipping after the step: it clips gradients the step has already used."""
import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for step in range(30):
    x = torch.randn(64, 8)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), x @ true_w)
    loss.backward()
    optimizer.step()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
