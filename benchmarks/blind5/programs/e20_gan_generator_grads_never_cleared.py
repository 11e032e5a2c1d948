"""1-D GAN: the generator learns a mixture of two Gaussians."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
Z = 8


def real_samples(n):
    comp = torch.randint(0, 2, (n, 1)).float()
    return comp * (2 + 0.3 * torch.randn(n, 1)) + (1 - comp) * (-2 + 0.3 * torch.randn(n, 1))


class GANModule:
    def __init__(self):
        self.G = nn.Sequential(nn.Linear(Z, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.D = nn.Sequential(nn.Linear(1, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=1e-3, betas=(0.5, 0.999))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=1e-3, betas=(0.5, 0.999))

    def discriminator_step(self, real, fake):
        self.opt_d.zero_grad()
        d_real = self.D(real)
        d_fake = self.D(fake.detach())
        loss = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        loss.backward()
        self.opt_d.step()
        return loss.item()

    def generator_step(self, fake):
        d_out = self.D(fake)
        loss = F.binary_cross_entropy_with_logits(d_out, torch.ones_like(d_out))
        loss.backward()
        self.opt_g.step()
        return loss.item()

    def train(self, iters=50, bs=64):
        for it in range(iters):
            real = real_samples(bs)
            fake = self.G(torch.randn(bs, Z))
            d_loss = self.discriminator_step(real, fake)
            g_loss = self.generator_step(fake)
            if it % 10 == 0:
                print(it, round(d_loss, 3), round(g_loss, 3))


GANModule().train()
