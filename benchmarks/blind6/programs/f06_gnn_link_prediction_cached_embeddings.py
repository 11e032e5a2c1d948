# Link prediction with a two-layer GCN encoder on a random graph. `embed`
# detaches so that the embeddings can be cached for evaluation, and training uses it too.
import torch
import torch.nn as nn
import torch.nn.functional as F

N, D = 50, 16
torch.manual_seed(0)
adj = (torch.rand(N, N) < 0.1).float()
adj = ((adj + adj.t()) > 0).float() + torch.eye(N)
deg = adj.sum(1)
norm_adj = adj / torch.sqrt(deg[:, None] * deg[None, :])
feats = torch.randn(N, D)


class GCNEncoder(nn.Module):
    def __init__(self, d_in, d_hid):
        super().__init__()
        self.l1 = nn.Linear(d_in, d_hid)
        self.l2 = nn.Linear(d_hid, d_hid)
        self.cache = None

    def forward(self, x, a):
        h = F.relu(a @ self.l1(x))
        return a @ self.l2(h)

    def embed(self, x, a):
        self.cache = self(x, a).detach()
        return self.cache


def link_logits(z, edges):
    return (z[edges[0]] * z[edges[1]]).sum(-1)


encoder = GCNEncoder(D, 32)
opt = torch.optim.Adam(encoder.parameters(), lr=0.01)
pos = adj.nonzero().t()
for epoch in range(20):
    neg = torch.randint(0, N, pos.shape)
    z = encoder.embed(feats, norm_adj)
    logits = torch.cat([link_logits(z, pos), link_logits(z, neg)])
    labels = torch.cat([torch.ones(pos.shape[1]), torch.zeros(neg.shape[1])])
    loss = F.binary_cross_entropy_with_logits(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, loss.item())
