"""WGAN-GP over 100 critic steps: gradient penalty through autograd.grad(create_graph=True), generator every 2nd step."""
import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
centers = torch.tensor([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.0]])


def sample_real(n):
    return centers[torch.randint(0, 3, (n,))] + 0.1 * torch.randn(n, 2)


def gradient_penalty(real, fake):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    grad, = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


for it in range(100):
    real = sample_real(64)
    fake = G(torch.randn(64, 8)).detach()
    c_loss = critic(fake).mean() - critic(real).mean() + 10.0 * gradient_penalty(real, fake)
    opt_c.zero_grad()
    c_loss.backward()
    opt_c.step()
    if it % 2 == 1:
        g_loss = -critic(G(torch.randn(64, 8))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    if it % 25 == 0:
        print(f"it {it} critic {c_loss.item():.3f}")
