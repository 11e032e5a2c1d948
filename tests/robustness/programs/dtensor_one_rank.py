"""A replicated DTensor model on a one-process gloo mesh (tensor-parallel code run on one rank)."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, distribute_tensor

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29531")
dist.init_process_group("gloo", rank=0, world_size=1)
mesh = init_device_mesh("cpu", (1,))
torch.manual_seed(0)
w = nn.Parameter(distribute_tensor(torch.randn(4, 1) * 0.1, mesh, [Replicate()]))
opt = torch.optim.SGD([w], lr=0.1)
x = distribute_tensor(torch.randn(16, 4), mesh, [Replicate()])
y = distribute_tensor(torch.randn(16, 1), mesh, [Replicate()])
for step in range(4):
    loss = ((x @ w - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("dtensor", type(w.data).__name__, round(loss.full_tensor().item(), 4))
dist.destroy_process_group()
