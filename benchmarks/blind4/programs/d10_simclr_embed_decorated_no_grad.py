"""SimCLR on synthetic 'images' (feature vectors) with a kNN monitor."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SimCLR(nn.Module):
    def __init__(self, d_in=32, d_feat=64, d_proj=32, temperature=0.2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d_feat), nn.BatchNorm1d(d_feat), nn.ReLU(),
                                     nn.Linear(d_feat, d_feat))
        self.projector = nn.Sequential(nn.Linear(d_feat, d_feat), nn.ReLU(), nn.Linear(d_feat, d_proj))
        self.t = temperature

    @torch.no_grad()
    def embed(self, x):
        return F.normalize(self.projector(self.encoder(x)), dim=-1)

    def nt_xent(self, z1, z2):
        z = torch.cat([z1, z2])
        sim = z @ z.t() / self.t
        sim.fill_diagonal_(float("-inf"))
        n = z1.shape[0]
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
        return F.cross_entropy(sim, targets)

    def training_step(self, x):
        v1 = x + 0.2 * torch.randn_like(x)
        v2 = x * (torch.rand_like(x) > 0.1)
        return self.nt_xent(self.embed(v1), self.embed(v2))


def knn_accuracy(model, bank_x, bank_y, qx, qy):
    model.eval()
    sims = model.embed(qx) @ model.embed(bank_x).t()
    pred = bank_y[sims.argmax(-1)]
    model.train()
    return (pred == qy).float().mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    centers = torch.randn(5, 32) * 2
    y = torch.randint(0, 5, (600,))
    x = centers[y] + torch.randn(600, 32)
    model = SimCLR()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for i in range(0, 500, 100):
            loss = model.training_step(x[i:i + 100])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, knn_accuracy(model, x[:500], y[:500], x[500:], y[500:]))
