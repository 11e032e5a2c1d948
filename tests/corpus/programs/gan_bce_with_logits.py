"""A GAN on a 2-D mixture of Gaussians with BCEWithLogitsLoss, real and fake losses on separate lines.

The discriminator ends in a Linear layer: its outputs are logits, and the loss applies the sigmoid.
The real samples' logits may all lie in [0, 1] for a stretch of training (a discriminator that is only
mildly sure); the fakes' go below 0. No sigmoid is applied before the loss anywhere.
"""
import math

import torch
from torch import nn

torch.manual_seed(0)
LATENT, BATCH = 8, 64


def real_batch(n):
    angles = torch.randint(0, 8, (n,)).float() * (2 * math.pi / 8)
    centers = torch.stack([angles.cos(), angles.sin()], dim=1) * 2.0
    return centers + 0.05 * torch.randn(n, 2)


generator = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
discriminator = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2),
                              nn.Linear(64, 1))
criterion = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(discriminator.parameters(), lr=1e-4, betas=(0.5, 0.999))
real_label = torch.ones(BATCH, 1)
fake_label = torch.zeros(BATCH, 1)

for step in range(300):
    # discriminator: real samples towards 1, generated ones towards 0
    real = real_batch(BATCH)
    fake = generator(torch.randn(BATCH, LATENT))
    opt_d.zero_grad()
    loss_real = criterion(discriminator(real), real_label)
    loss_fake = criterion(discriminator(fake.detach()), fake_label)
    (loss_real + loss_fake).backward()
    opt_d.step()

    # generator: make the discriminator call its samples real
    opt_g.zero_grad()
    loss_g = criterion(discriminator(fake), real_label)
    loss_g.backward()
    opt_g.step()
    if step % 100 == 0:
        print(f"step {step} d_real {loss_real.item():.3f} d_fake {loss_fake.item():.3f} g {loss_g.item():.3f}")
