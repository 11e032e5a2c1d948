"""Node classification with a hand-written GCN, warmup + cosine schedule."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GCNLayer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, x, adj):
        deg = adj.sum(1, keepdim=True).clamp(min=1)
        return (adj @ self.lin(x)) / deg


class GCN(nn.Module):
    def __init__(self, d_in, d_hidden, n_cls, dropout=0.5):
        super().__init__()
        self.c1, self.c2 = GCNLayer(d_in, d_hidden), GCNLayer(d_hidden, n_cls)
        self.dropout = dropout

    def forward(self, x, adj):
        h = F.dropout(F.relu(self.c1(x, adj)), self.dropout, self.training)
        return self.c2(h, adj)


def warmup_cosine(optimizer, warmup, total):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)


if __name__ == "__main__":
    torch.manual_seed(0)
    n, n_cls = 100, 3
    y = torch.randint(0, n_cls, (n,))
    x = F.one_hot(y, n_cls).float() @ torch.randn(n_cls, 16) + torch.randn(n, 16)
    adj = ((y[:, None] == y[None, :]).float() * (torch.rand(n, n) < 0.1).float() + torch.eye(n)).clamp(max=1)
    train_mask = torch.rand(n) < 0.6
    model = GCN(16, 32, n_cls)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
    scheduler = warmup_cosine(optimizer, warmup=10, total=100)
    for epoch in range(100):
        model.train()
        optimizer.zero_grad()
        out = model(x, adj)
        loss = F.cross_entropy(out[train_mask], y[train_mask])
        loss.backward()
        scheduler.step()
    model.eval()
    with torch.no_grad():
        acc = (model(x, adj).argmax(1)[~train_mask] == y[~train_mask]).float().mean()
    print(loss.item(), acc.item())
