"""ZeRO-style sharding by hand: each rank keeps fp32 master copies of its shard of the parameters as a plain list
of nn.Parameters and hands them to its own optimizer; gradients are copied in and updated weights copied back."""
import torch
import torch.distributed as dist
import torch.nn as nn


class ShardedMasterWeights(nn.Module):
    def __init__(self, module, rank, world_size):
        super().__init__()
        self.module = module
        self.rank = rank
        self.world_size = world_size
        self.owned = [p for i, p in enumerate(module.parameters()) if i % world_size == rank]
        self.masters = []
        for p in self.owned:
            self.masters.append(nn.Parameter(p.detach().float().clone()))

    def forward(self, x):
        return self.module(x)

    def master_parameters(self):
        return self.masters

    @torch.no_grad()
    def copy_grads_to_masters(self):
        for p, m in zip(self.owned, self.masters):
            m.grad = p.grad.float() if p.grad is not None else None

    @torch.no_grad()
    def copy_masters_to_model(self):
        for p, m in zip(self.owned, self.masters):
            p.copy_(m.to(p.dtype))
        for i, p in enumerate(self.module.parameters()):
            dist.broadcast(p, src=i % self.world_size)


def build_optimizer(wrapper, lr=1e-3, weight_decay=0.01):
    return torch.optim.AdamW(wrapper.master_parameters(), lr=lr, weight_decay=weight_decay)


def train(wrapper, loader, optimizer, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            wrapper.module.zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(wrapper(x), y)
            loss.backward()
            for p in wrapper.module.parameters():
                if p.grad is not None:
                    dist.all_reduce(p.grad)
                    p.grad /= wrapper.world_size
            wrapper.copy_grads_to_masters()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            wrapper.copy_masters_to_model()
