"""Deep GIN-style message passing network for graph classification on random graphs."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class GINConv(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d))
        self.eps = nn.Parameter(torch.zeros(1))

    def forward(self, x, adj):
        return self.mlp((1 + self.eps) * x + adj @ x)


class GIN(nn.Module):
    def __init__(self, din, d, layers, classes):
        super().__init__()
        self.inp = nn.Linear(din, d)
        conv = GINConv(d)
        self.convs = nn.ModuleList()
        self.norms = nn.ModuleList()
        for _ in range(layers):
            self.convs.append(conv)
            self.norms.append(nn.LayerNorm(d))
        self.readout = nn.Linear(d, classes)

    def forward(self, x, adj):
        h = self.inp(x)
        for conv, norm in zip(self.convs, self.norms):
            h = F.relu(norm(conv(h, adj))) + h
        return self.readout(h.sum(0))


def random_graph(label):
    n = torch.randint(8, 16, ()).item()
    p = 0.15 if label == 0 else 0.4
    adj = (torch.rand(n, n) < p).float().triu(1)
    return torch.randn(n, 4), adj + adj.t()


model = GIN(4, 32, layers=4, classes=2)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
graphs = [(random_graph(i % 2), i % 2) for i in range(40)]
for epoch in range(3):
    total = 0.0
    for (x, adj), label in graphs:
        logits = model(x, adj)
        loss = F.cross_entropy(logits.unsqueeze(0), torch.tensor([label]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, total / len(graphs))
