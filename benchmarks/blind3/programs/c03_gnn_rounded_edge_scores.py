"""A hand-written graph network that predicts edge weights, trained with L1 loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphConv(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, x, adj):
        deg = adj.sum(-1, keepdim=True).clamp(min=1)
        return F.relu(self.lin(adj @ x / deg))


class EdgeRegressor(nn.Module):
    def __init__(self, d=8):
        super().__init__()
        self.conv1 = GraphConv(d, 16)
        self.conv2 = GraphConv(16, 16)

    def forward(self, x, adj, src, dst):
        h = self.conv2(self.conv1(x, adj), adj)
        score = (h[src] * h[dst]).sum(-1)
        return score.round().clamp(0, 5)


model = EdgeRegressor()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x = torch.randn(10, 8)
adj = (torch.rand(10, 10) > 0.6).float()
src, dst = adj.nonzero(as_tuple=True)
weights = torch.randint(0, 6, (src.numel(),)).float()
for it in range(5):
    pred = model(x, adj, src, dst)
    loss = F.l1_loss(pred, weights)
    opt.zero_grad()
    loss.backward()
    opt.step()
