# Metric-learning embedding net; the loss helper returns floats for logging (forum post, 2025).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class EmbeddingNet(nn.Module):
    def __init__(self, in_dim=16, emb_dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, emb_dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


def triplet_stats(anchor, positive, negative, margin=0.3):
    dist_ap = (anchor - positive).pow(2).sum(dim=1)
    dist_an = (anchor - negative).pow(2).sum(dim=1)
    loss = F.relu(dist_ap - dist_an + margin).mean()
    frac_active = (dist_ap - dist_an + margin > 0).float().mean()
    return loss.item(), dist_ap.mean().item(), dist_an.mean().item(), frac_active.item()


def make_batch(batch_size=32, in_dim=16):
    labels = torch.randint(0, 4, (batch_size,))
    protos = torch.eye(4, in_dim) * 3
    anchor = protos[labels] + 0.5 * torch.randn(batch_size, in_dim)
    positive = protos[labels] + 0.5 * torch.randn(batch_size, in_dim)
    negative = protos[(labels + 1) % 4] + 0.5 * torch.randn(batch_size, in_dim)
    return anchor, positive, negative


model = EmbeddingNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for step in range(30):
    a, p, n = make_batch()
    ea, ep, en = model(a), model(p), model(n)
    loss_value, d_ap, d_an, active = triplet_stats(ea, ep, en)
    loss = torch.tensor(loss_value, requires_grad=True)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step:02d} loss {loss_value:.4f} d_ap {d_ap:.3f} d_an {d_an:.3f} active {active:.2f}")
