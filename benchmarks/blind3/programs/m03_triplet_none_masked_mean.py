"""Metric learning with per-triplet losses averaged over the hard triplets."""
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
criterion = nn.TripletMarginLoss(margin=0.2, reduction="none")
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(3):
    x = torch.randn(3, 16, 32)
    a, p, n = (F.normalize(model(t), dim=-1) for t in (x[0], x[0] + 0.1 * x[1], x[2]))
    per_triplet = criterion(a, p, n)
    active = (per_triplet > 0).float()
    loss = (per_triplet * active).sum() / active.sum().clamp(min=1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
