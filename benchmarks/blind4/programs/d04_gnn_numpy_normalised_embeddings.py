"""Link prediction with a hand-written two-layer GCN; embeddings L2-normalised before scoring."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def normalized_adjacency(edge_index, n):
    a = torch.zeros(n, n)
    a[edge_index[0], edge_index[1]] = 1.0
    a = a + a.t() + torch.eye(n)
    a = (a > 0).float()
    d = a.sum(1).pow(-0.5)
    return d[:, None] * a * d[None, :]


class GCN(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.l1 = nn.Linear(d_in, d_hidden)
        self.l2 = nn.Linear(d_hidden, d_out)

    def forward(self, x, a_hat):
        h = F.relu(a_hat @ self.l1(x))
        return a_hat @ self.l2(h)


def l2_normalize(h):
    arr = h.detach().cpu().numpy()
    arr = arr / (np.linalg.norm(arr, axis=1, keepdims=True) + 1e-8)
    return torch.from_numpy(arr)


def edge_scores(z, pairs):
    return (z[pairs[0]] * z[pairs[1]]).sum(-1) * 5.0


if __name__ == "__main__":
    torch.manual_seed(0)
    n = 60
    feats = torch.randn(n, 12)
    pos = torch.randint(0, n, (2, 200))
    a_hat = normalized_adjacency(pos, n)
    model = GCN(12, 32, 16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(30):
        neg = torch.randint(0, n, (2, 200))
        z = l2_normalize(model(feats, a_hat))
        logits = torch.cat([edge_scores(z, pos), edge_scores(z, neg)])
        labels = torch.cat([torch.ones(200), torch.zeros(200)])
        loss = F.binary_cross_entropy_with_logits(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())
