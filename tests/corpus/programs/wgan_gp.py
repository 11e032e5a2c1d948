"""WGAN-GP: gradient penalty with torch.autograd.grad(create_graph=True) on interpolates."""
import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
for step in range(20):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4)).detach()
    alpha = torch.rand(16, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    grads = torch.autograd.grad(D(interp).sum(), interp, create_graph=True)[0]
    penalty = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    d_loss = D(fake).mean() - D(real).mean() + 10 * penalty
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    if step % 5 == 0:
        g_loss = -D(G(torch.randn(16, 4))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
