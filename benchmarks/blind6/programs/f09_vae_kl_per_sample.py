# Variational autoencoder on synthetic 2-D data: the KL term is summed over
# the latent dimensions only, so it stays one value per sample.
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, d_in=16, d_z=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU())
        self.mu = nn.Linear(64, d_z)
        self.logvar = nn.Linear(64, d_z)
        self.dec = nn.Sequential(nn.Linear(d_z, 64), nn.ReLU(), nn.Linear(64, d_in))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar, beta=1.0):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)
    return rec + beta * kl


data = torch.randn(512, 16) @ torch.randn(16, 16) * 0.3
model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    for i in range(0, 512, 64):
        x = data[i:i + 64]
        recon, mu, logvar = model(x)
        loss = vae_loss(recon, x, mu, logvar)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch)
