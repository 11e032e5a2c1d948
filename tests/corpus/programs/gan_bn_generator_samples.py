"""A GAN whose batch-norm generator is sampled under no_grad for logging, in training mode as GAN code does (DCGAN style; the discriminator has no dropout)."""
import torch
import torch.nn as nn

torch.manual_seed(0)
nz = 8
G = nn.Sequential(nn.Linear(nz, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 16), nn.Tanh())
D = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())
optG = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
optD = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCELoss()
fixed_noise = torch.randn(16, nz)
samples = []
for it in range(40):
    real = torch.rand(32, 16) * 2 - 1
    z = torch.randn(32, nz)
    fake = G(z)
    optD.zero_grad()
    lossD = bce(D(real), torch.ones(32, 1)) + bce(D(fake.detach()), torch.zeros(32, 1))
    lossD.backward()
    optD.step()
    optG.zero_grad()
    lossG = bce(D(fake), torch.ones(32, 1))
    lossG.backward()
    optG.step()
    if it % 10 == 0:
        with torch.no_grad():
            samples.append(G(fixed_noise).cpu())
with torch.no_grad():
    final = G(fixed_noise)
print(len(samples), final.shape)
