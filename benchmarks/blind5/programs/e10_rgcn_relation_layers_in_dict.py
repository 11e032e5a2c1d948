"""Relational GCN for a small knowledge graph: one linear map per relation type."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
RELATIONS = ("cites", "authored_by", "published_in")
N, D, CLASSES = 80, 16, 3


class RGCNLayer(nn.Module):
    def __init__(self, din, dout, relations):
        super().__init__()
        self.self_loop = nn.Linear(din, dout)
        self.rel_weights = {rel: nn.Linear(din, dout, bias=False) for rel in relations}

    def forward(self, x, adjs):
        out = self.self_loop(x)
        for rel, adj in adjs.items():
            deg = adj.sum(1, keepdim=True).clamp(min=1)
            out = out + (adj @ self.rel_weights[rel](x)) / deg
        return out


class RGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = RGCNLayer(D, 32, RELATIONS)
        self.l2 = RGCNLayer(32, CLASSES, RELATIONS)

    def forward(self, x, adjs):
        return self.l2(F.relu(self.l1(x, adjs)), adjs)


def random_graph():
    adjs = {rel: (torch.rand(N, N) < 0.04).float() for rel in RELATIONS}
    x = torch.randn(N, D)
    y = (adjs["cites"].sum(1) > 3).long() + (x[:, 0] > 1).long()
    return x, adjs, y


def train(model, x, adjs, y, epochs=40):
    params = list(model.parameters())
    print("trainable tensors:", len(params))
    opt = torch.optim.Adam(params, lr=0.01)
    for epoch in range(epochs):
        opt.zero_grad()
        loss = F.cross_entropy(model(x, adjs), y)
        loss.backward()
        opt.step()
        if epoch % 10 == 0:
            print(epoch, round(loss.item(), 4))


x, adjs, y = random_graph()
train(RGCN(), x, adjs, y)
