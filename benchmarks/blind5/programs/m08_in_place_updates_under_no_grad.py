"""Embedding recommender with GPT-style init, a max-norm constraint and a hand-written SGD step."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MF(nn.Module):
    def __init__(self, n_users=60, n_items=50, d=8):
        super().__init__()
        self.users = nn.Embedding(n_users, d)
        self.items = nn.Embedding(n_items, d)
        self.bias = nn.Parameter(torch.zeros(1))
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=0.1)

    def forward(self, u, i):
        return (self.users(u) * self.items(i)).sum(-1) + self.bias


@torch.no_grad()
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.sub_(lr * p.grad)
            p.grad.zero_()


def apply_max_norm(module, max_norm=1.0):
    with torch.no_grad():
        w = module.weight
        w.mul_(max_norm / w.norm(dim=1, keepdim=True).clamp(min=max_norm))


u = torch.randint(0, 60, (2000,))
i = torch.randint(0, 50, (2000,))
r = torch.randn(2000)
model = MF()
for epoch in range(4):
    perm = torch.randperm(2000)
    for s in range(0, 2000, 100):
        idx = perm[s:s + 100]
        loss = F.mse_loss(model(u[idx], i[idx]), r[idx])
        loss.backward()
        sgd_step(model.parameters(), lr=0.5)
        apply_max_norm(model.users)
        apply_max_norm(model.items)
    print(epoch, round(loss.item(), 4))
