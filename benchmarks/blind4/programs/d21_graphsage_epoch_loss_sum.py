"""Mini-batch GraphSAGE (mean aggregator, written by hand) with epoch loss reporting."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SAGELayer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.self_lin = nn.Linear(d_in, d_out)
        self.neigh_lin = nn.Linear(d_in, d_out, bias=False)

    def forward(self, h, neighbors):
        neigh_mean = h[neighbors].mean(1)
        return self.self_lin(h) + self.neigh_lin(neigh_mean)


class SAGE(nn.Module):
    def __init__(self, d_in, d_hidden, n_cls):
        super().__init__()
        self.l1, self.l2 = SAGELayer(d_in, d_hidden), SAGELayer(d_hidden, n_cls)

    def forward(self, x, neighbors):
        return self.l2(F.relu(self.l1(x, neighbors)), neighbors)


def sample_neighbors(n, k=5):
    return torch.randint(0, n, (n, k))


if __name__ == "__main__":
    torch.manual_seed(0)
    n, n_cls = 300, 4
    y = torch.randint(0, n_cls, (n,))
    x = torch.randn(n, 8) + F.one_hot(y, n_cls).float().repeat(1, 2)
    model = SAGE(8, 32, n_cls)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for epoch in range(5):
        epoch_loss = 0
        perm = torch.randperm(n)
        for i in range(0, n, 50):
            idx = perm[i:i + 50]
            logits = model(x, sample_neighbors(n))[idx]
            loss = F.cross_entropy(logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            epoch_loss += loss
        print(f"epoch {epoch}: mean loss {epoch_loss / 6:.4f}")
