"""Node classification with a hand-written two-layer GCN, training split over helper functions."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GCN(nn.Module):
    def __init__(self, d_in=8, hidden=16, classes=3):
        super().__init__()
        self.w1 = nn.Linear(d_in, hidden)
        self.w2 = nn.Linear(hidden, classes)

    def forward(self, x, a_hat):
        return self.w2(a_hat @ F.relu(self.w1(a_hat @ x)))


def normalized_adjacency(n):
    a = (torch.rand(n, n) > 0.7).float()
    a = ((a + a.t()) > 0).float() + torch.eye(n)
    d = a.sum(1).rsqrt()
    return d[:, None] * a * d[None, :]


def run_epoch(model, optimizer, x, a_hat, y, mask):
    model.train()
    optimizer.zero_grad()
    out = model(x, a_hat)
    loss = F.cross_entropy(out[mask], y[mask])
    loss.backward()
    return loss.item()


x, a_hat = torch.randn(20, 8), normalized_adjacency(20)
y, mask = torch.randint(0, 3, (20,)), torch.rand(20) > 0.5
model = GCN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, weight_decay=5e-4)
for epoch in range(5):
    print(epoch, run_epoch(model, optimizer, x, a_hat, y, mask))
