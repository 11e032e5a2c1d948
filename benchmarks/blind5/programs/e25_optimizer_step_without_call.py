"""Node-level regression on a random graph with a GraphSAGE-style mean aggregator."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, D = 100, 8


class SAGELayer(nn.Module):
    def __init__(self, din, dout):
        super().__init__()
        self.lin_self = nn.Linear(din, dout)
        self.lin_neigh = nn.Linear(din, dout)

    def forward(self, x, adj):
        neigh = adj @ x / adj.sum(1, keepdim=True).clamp(min=1)
        return self.lin_self(x) + self.lin_neigh(neigh)


class SAGE(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = SAGELayer(D, 32)
        self.l2 = SAGELayer(32, 1)

    def forward(self, x, adj):
        return self.l2(F.relu(self.l1(x, adj)), adj).squeeze(-1)


adj = (torch.rand(N, N) < 0.05).float()
x = torch.randn(N, D)
target = (adj @ x[:, 0]) / adj.sum(1).clamp(min=1) + x[:, 1]

model = SAGE()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
history = []
for epoch in range(60):
    model.train()
    optimizer.zero_grad()
    pred = model(x, adj)
    loss = F.mse_loss(pred, target)
    loss.backward()
    optimizer.step
    history.append(loss.item())
    if epoch % 20 == 0:
        print(epoch, history[-1])
print("first/last", history[0], history[-1])
