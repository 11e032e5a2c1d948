"""Reentrant checkpointing of a residual MLP's stages, and checkpoint_sequential over a deep Sequential."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)
embed = nn.Linear(10, 32)
stages = nn.ModuleList(nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.LayerNorm(32)) for _ in range(3))
trunk = nn.Sequential(*[nn.Sequential(nn.Linear(32, 32), nn.Tanh()) for _ in range(4)])
head = nn.Linear(32, 1)
params = [*embed.parameters(), *stages.parameters(), *trunk.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.05, momentum=0.9)
x, y = torch.randn(16, 10), torch.randn(16, 1)
for step in range(4):
    h = embed(x)  # requires grad: reentrant checkpointing sees an input with a gradient
    for stage in stages:
        h = h + checkpoint(stage, h, use_reentrant=True)
    h = checkpoint_sequential(trunk, 2, h, use_reentrant=False)
    loss = nn.functional.mse_loss(head(h), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", loss.item(), "weights", sum(p.double().sum() for p in params).item())
