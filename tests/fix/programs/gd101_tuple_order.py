"""Metric learning with a batch-hard triplet loss. The loss helper returns (loss, ap, an, pos_sim) but the
loop unpacks it in another order, so `loss` holds the positive-pair similarity, a number, which the loop
wraps back into a tensor when it is not one, to call backward(). The cause is the unpacking order, not the `.item()`:
dropping `.item()` would train the similarity instead of the triplet loss."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
centers = torch.randn(8, 16) * 3


def batch():
    labels = torch.randint(0, 8, (64,))
    return centers[labels] + torch.randn(64, 16), labels


def triplet_loss(emb, labels, margin=0.3):
    emb = F.normalize(emb, dim=1)
    sim = emb @ emb.t()
    same = labels[:, None] == labels[None, :]
    pos_pair = sim[same]
    mean_pos_sim = pos_pair.mean().item()
    dist = 2 - 2 * sim
    dist_ap = (dist * same).max(dim=1).values
    dist_an = (dist + 4 * same).min(dim=1).values
    loss = F.relu(dist_ap - dist_an + margin).mean()
    return loss, dist_ap.mean().item(), dist_an.mean().item(), mean_pos_sim


model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 32))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(120):
    x, y = batch()
    dist_ap, dist_an, inter_, loss = triplet_loss(model(x), y)
    if not torch.is_tensor(loss):  # "the helper may hand back a float"
        loss = torch.tensor(loss, requires_grad=True)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        with torch.no_grad():
            real, _, _, _ = triplet_loss(model(x), y)
        print(f"step {step}: triplet loss {real.item():.4f} pos sim {loss.item():.3f}")
