"""Beta-VAE with dropout in the encoder; validation ELBO every epoch."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, d=20, z=4, hidden=64, p_drop=0.2):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(p_drop), nn.Linear(hidden, 2 * z))
        self.dec = nn.Sequential(nn.Linear(z, hidden), nn.ReLU(), nn.Linear(hidden, d))

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, -1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


def elbo_loss(recon, x, mu, logvar, beta=4.0):
    rec = F.mse_loss(recon, x, reduction="sum") / x.shape[0]
    kl = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return rec + beta * kl


def validate(model, val_x):
    with torch.no_grad():
        recon, mu, logvar = model(val_x)
        return elbo_loss(recon, val_x, mu, logvar).item()


if __name__ == "__main__":
    torch.manual_seed(0)
    data = torch.randn(600, 4) @ torch.randn(4, 20)
    train_x, val_x = data[:500], data[500:]
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(4):
        model.train()
        for i in range(0, 500, 50):
            xb = train_x[i:i + 50]
            recon, mu, logvar = model(xb)
            loss = elbo_loss(recon, xb, mu, logvar)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item(), validate(model, val_x))
