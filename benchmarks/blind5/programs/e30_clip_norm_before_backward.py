"""Pointer-style attention decoder for sorting short sequences; gradients clipped by norm."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LEN = 6


class AttnSorter(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.inp = nn.Linear(1, d)
        self.enc = nn.GRU(d, d, batch_first=True)
        self.query = nn.Parameter(torch.randn(LEN, d) * 0.1)
        self.key = nn.Linear(d, d)

    def forward(self, x):
        h, _ = self.enc(self.inp(x.unsqueeze(-1)))
        return self.query @ self.key(h).transpose(1, 2)


def batch(bs=32):
    x = torch.rand(bs, LEN)
    return x, x.argsort(dim=1)


model = AttnSorter()
opt = torch.optim.RMSprop(model.parameters(), lr=3e-3)
max_norm = 0.5

for it in range(40):
    x, order = batch()
    scores = model(x)
    loss = F.cross_entropy(scores.reshape(-1, LEN), order.reshape(-1))
    opt.zero_grad()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    loss.backward()
    opt.step()
    if it % 10 == 0:
        acc = (scores.argmax(-1) == order).float().mean()
        print(it, round(loss.item(), 4), round(acc.item(), 3))
