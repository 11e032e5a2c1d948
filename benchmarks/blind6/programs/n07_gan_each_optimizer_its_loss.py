# GAN on 2-D data with each optimizer stepping for its own loss; the generator
# loss backpropagates through D, whose stale gradients are cleared before D's step.
import torch
import torch.nn as nn
import torch.nn.functional as F

G = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 2))
D = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)

for it in range(30):
    real = torch.randn(64, 2) * 0.3 + torch.tensor([1.0, -1.0])
    fake = G(torch.randn(64, 8))
    d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
        F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = F.binary_cross_entropy_with_logits(D(fake), ones)
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    if it % 10 == 0:
        print(it, d_loss.item(), g_loss.item())
