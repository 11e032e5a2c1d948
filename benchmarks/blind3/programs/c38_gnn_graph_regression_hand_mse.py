"""Graph-level regression (molecule property) with message passing written by hand."""
import torch
import torch.nn as nn


class MPNN(nn.Module):
    def __init__(self, d=8, hidden=16):
        super().__init__()
        self.msg = nn.Linear(d, hidden)
        self.upd = nn.GRUCell(hidden, hidden)
        self.inp = nn.Linear(d, hidden)
        self.readout = nn.Linear(hidden, 1)

    def forward(self, x, edge_index, batch, num_graphs):
        src, dst = edge_index
        h = self.inp(x)
        for _ in range(2):
            m = torch.zeros_like(h).index_add_(0, dst, self.msg(x)[src])
            h = self.upd(m, h)
        pooled = torch.zeros(num_graphs, h.size(1)).index_add_(0, batch, h)
        return self.readout(pooled)


model = MPNN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(3):
    x = torch.randn(12, 8)
    edge_index = torch.randint(0, 12, (2, 30))
    batch = torch.arange(4).repeat_interleave(3)
    y = torch.randn(4)
    pred = model(x, edge_index, batch, 4)
    loss = (pred - y).abs().pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
