"""Metric learning with a triplet margin loss over mined triplets."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class EmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


model = EmbeddingNet()
criterion = nn.TripletMarginLoss(margin=0.2, reduction="none")
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def train_step(anchor, positive, negative):
    optimizer.zero_grad()
    a, p, n = model(anchor), model(positive), model(negative)
    per_triplet = criterion(a, p, n)
    hard = per_triplet[per_triplet > 0]
    hard.backward()
    optimizer.step()
    return hard.detach()


for it in range(3):
    x = torch.randn(3, 16, 32)
    train_step(x[0], x[0] + 0.1 * x[1], x[2])
