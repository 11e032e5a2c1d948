"""FSDP2 (`fully_shard`) on CPU with gloo, under torchrun; argv[1]: "unused" (aux never used) or "none"."""

import sys
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard

BUG = sys.argv[1] if len(sys.argv) > 1 else "none"
dist.init_process_group("gloo", timeout=timedelta(seconds=30))
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.aux = nn.Linear(16, 2)
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        h = self.encoder(x)
        if BUG == "unused":
            return self.head(h)
        return self.head(h) + self.aux(h)


model = Net()
fully_shard(model.encoder)
fully_shard(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
g = torch.Generator().manual_seed(dist.get_rank())
for step in range(6):
    x, y = torch.randn(8, 8, generator=g), torch.randint(0, 2, (8,), generator=g)
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
dist.destroy_process_group()
