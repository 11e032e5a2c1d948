"""WGAN-GP: n_critic critic steps per generator step, gradient penalty with autograd.grad."""
import torch
import torch.nn as nn
from torch import autograd

G = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 784), nn.Tanh())
D = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
lambda_gp, n_critic = 10.0, 5


def gradient_penalty(D, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interpolates = D(interpolates)
    gradients = autograd.grad(
        outputs=d_interpolates, inputs=interpolates, grad_outputs=torch.ones_like(d_interpolates),
        create_graph=True, retain_graph=True,
    )[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


for epoch in range(100):
    for i, (real, _) in enumerate(dataloader):
        real = real.view(real.size(0), -1)
        z = torch.randn(real.size(0), 64)
        fake = G(z).detach()
        opt_d.zero_grad()
        d_loss = D(fake).mean() - D(real).mean() + lambda_gp * gradient_penalty(D, real, fake)
        d_loss.backward()
        opt_d.step()
        if i % n_critic == 0:
            opt_g.zero_grad()
            g_loss = -D(G(z)).mean()
            g_loss.backward()
            opt_g.step()
            print(f"[{epoch}][{i}] d_loss {d_loss.item():.3f} g_loss {g_loss.item():.3f}")
