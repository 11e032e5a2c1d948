# DCGAN-style training on 2-D ring data, as in many 2024 tutorials; one zero_grad got lost.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)


def ring(n=128):
    theta = torch.rand(n) * 2 * math.pi
    return torch.stack([torch.cos(theta), torch.sin(theta)], dim=1) * 2 + 0.05 * torch.randn(n, 2)


class Generator(nn.Module):
    def __init__(self, z=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


netG, netD = Generator(), Discriminator()
criterion = nn.BCEWithLogitsLoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))

for it in range(25):
    real = ring()
    b = real.size(0)
    # (1) Update D: maximize log(D(x)) + log(1 - D(G(z)))
    out_real = netD(real)
    errD_real = criterion(out_real, torch.ones(b, 1))
    fake = netG(torch.randn(b, 8))
    errD_fake = criterion(netD(fake.detach()), torch.zeros(b, 1))
    errD = errD_real + errD_fake
    errD.backward()
    optimizerD.step()

    # (2) Update G: maximize log(D(G(z)))
    netG.zero_grad()
    errG = criterion(netD(fake), torch.ones(b, 1))
    errG.backward()
    optimizerG.step()
    print(f"[{it}] Loss_D: {errD.item():.4f} Loss_G: {errG.item():.4f}")
