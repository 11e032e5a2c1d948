"""A GAN module with its optimizers kept in a dict, stepped by a training method."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GAN(nn.Module):
    def __init__(self, z=8, d=16):
        super().__init__()
        self.z = z
        self.generator = nn.Sequential(nn.Linear(z, 32), nn.ReLU(), nn.Linear(32, d))
        self.discriminator = nn.Sequential(nn.Linear(d, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.optimizers = {
            "g": torch.optim.Adam(self.generator.parameters(), lr=2e-4),
            "d": torch.optim.Adam(self.discriminator.parameters(), lr=2e-4),
        }

    def train_step(self, real):
        fake = self.generator(torch.randn(real.size(0), self.z))
        d_out_real, d_out_fake = self.discriminator(real), self.discriminator(fake.detach())
        loss_d = F.softplus(-d_out_real).mean() + F.softplus(d_out_fake).mean()
        self.optimizers["d"].zero_grad()
        loss_d.backward()
        self.optimizers["d"].step()

        loss_g = F.softplus(-self.discriminator(fake)).mean()
        self.optimizers["g"].zero_grad()
        loss_g.backward()
        self.optimizers["d"].step()
        return loss_d.item(), loss_g.item()


gan = GAN()
for it in range(3):
    gan.train_step(torch.randn(8, 16))
