# Self-supervised encoder with an online linear probe (as in SimCLR-style
# code): the probe sees detached features and has its own optimizer, but the
# probe loss is followed by the encoder optimizer's step.
import torch
import torch.nn as nn
import torch.nn.functional as F


def byol_like_loss(p, z):
    return 2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1).mean()


def train(steps=30, n_classes=5):
    encoder = nn.Sequential(nn.Linear(24, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 32))
    predictor = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 32))
    probe = nn.Linear(32, n_classes)
    ssl_opt = torch.optim.SGD(list(encoder.parameters()) + list(predictor.parameters()), lr=0.05, momentum=0.9)
    probe_opt = torch.optim.Adam(probe.parameters(), lr=1e-3)
    for step in range(steps):
        x = torch.randn(64, 24)
        labels = torch.randint(0, n_classes, (64,))
        z1, z2 = encoder(x + 0.1 * torch.randn_like(x)), encoder(x + 0.1 * torch.randn_like(x))
        ssl_loss = byol_like_loss(predictor(z1), z2) + byol_like_loss(predictor(z2), z1)
        ssl_opt.zero_grad()
        ssl_loss.backward()
        ssl_opt.step()

        probe_loss = F.cross_entropy(probe(z1.detach()), labels)
        probe_opt.zero_grad()
        probe_loss.backward()
        ssl_opt.step()
        if step % 10 == 0:
            print(step, ssl_loss.item(), probe_loss.item())


train()
