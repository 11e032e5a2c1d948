"""Small GAN on 8x8 'images': the discriminator sees detached fakes, each network has its own optimizer."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
Z = 16


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(Z, 128), nn.ReLU(), nn.Linear(128, 64), nn.Tanh())

    def forward(self, z):
        return self.net(z).view(-1, 1, 8, 8)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))

    def forward(self, x):
        return self.net(x)


def real_batch(bs):
    base = torch.zeros(bs, 1, 8, 8)
    base[:, :, 2:6, 2:6] = 1.0
    return (base + 0.1 * torch.randn_like(base)).clamp(-1, 1)


G, D = Generator(), Discriminator()
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()
g_losses, d_losses = [], []

for it in range(40):
    real = real_batch(32)
    fake = G(torch.randn(32, Z))

    opt_d.zero_grad()
    d_real, d_fake = D(real), D(fake.detach())
    d_loss = bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))
    d_loss.backward()
    opt_d.step()

    opt_g.zero_grad()
    g_out = D(fake)
    g_loss = bce(g_out, torch.ones_like(g_out))
    g_loss.backward()
    opt_g.step()

    g_losses.append(g_loss.item())
    d_losses.append(d_loss.item())
    if it % 10 == 0:
        print(it, round(d_losses[-1], 3), round(g_losses[-1], 3))
