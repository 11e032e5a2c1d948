"""SimCLR pre-training with NT-Xent loss and a cosine schedule over the epochs."""
import torch
import torch.nn as nn
import torch.nn.functional as F

epochs = 3
encoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 32))
projector = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 16))
optimizer = torch.optim.Adam(list(encoder.parameters()) + list(projector.parameters()), lr=3e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs, eta_min=1e-6)


def nt_xent(z1, z2, tau=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / tau
    sim.fill_diagonal_(float("-inf"))
    n = z1.size(0)
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


def augment(x):
    return x + 0.1 * torch.randn_like(x)


batches = [torch.randn(16, 32) for _ in range(4)]
for epoch in range(epochs):
    for x in batches:
        z1, z2 = projector(encoder(augment(x))), projector(encoder(augment(x)))
        loss = nt_xent(z1, z2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
