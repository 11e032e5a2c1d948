"""DCGAN-like training on small vectors with gradient clipping on the generator."""
import torch
import torch.nn as nn
import torch.nn.functional as F

netG = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16), nn.Tanh())
netD = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))

for it in range(4):
    real = torch.rand(8, 16) * 2 - 1
    fake = netG(torch.randn(8, 8))
    d_real, d_fake = netD(real), netD(fake.detach())
    errD = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
        F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
    optD.zero_grad()
    errD.backward()
    optD.step()

    out = netD(fake)
    errG = F.binary_cross_entropy_with_logits(out, torch.ones_like(out))
    optG.zero_grad()
    errG.backward()
    optG.step()
    torch.nn.utils.clip_grad_value_(netG.parameters(), clip_value=1.0)
