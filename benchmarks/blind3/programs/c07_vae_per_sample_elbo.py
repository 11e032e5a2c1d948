"""A VAE on binarised vectors with the ELBO computed per sample."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, d=64, z=8):
        super().__init__()
        self.enc = nn.Linear(d, 2 * z)
        self.dec = nn.Sequential(nn.Linear(z, 32), nn.ReLU(), nn.Linear(32, d))

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def elbo(x, logits, mu, logvar):
    recon = F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(dim=1)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)
    return recon + kl


vae = VAE()
opt = torch.optim.Adam(vae.parameters(), lr=1e-3)
for epoch in range(3):
    x = (torch.rand(16, 64) > 0.5).float()
    logits, mu, logvar = vae(x)
    loss = elbo(x, logits, mu, logvar)
    opt.zero_grad()
    loss.backward()
    opt.step()
