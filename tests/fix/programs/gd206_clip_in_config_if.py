"""A configurable train step whose clipping (behind `if cfg["clip"] > 0:`) runs before backward, on the
gradients zero_grad just cleared: it clips nothing."""
import torch
from torch import nn

torch.manual_seed(0)
cfg = {"lr": 0.05, "clip": 0.5}
x = torch.randn(256, 8)
y = torch.sin(x[:, :1] * 2) + x[:, 1:2]
model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)


def train_step(xb, yb):
    optimizer.zero_grad()
    if cfg["clip"] > 0:
        nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
    loss = nn.functional.mse_loss(model(xb), yb)
    loss.backward()
    optimizer.step()
    return loss.item()


for epoch in range(5):
    for i in range(0, 256, 32):
        loss = train_step(x[i:i + 32], y[i:i + 32])
    print(f"epoch {epoch}: loss {loss:.4f}")
