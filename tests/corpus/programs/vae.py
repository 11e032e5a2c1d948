"""A small VAE with the reparameterisation trick and an eval pass under no_grad."""
import torch
from torch import nn

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(20, 32), nn.ReLU())
        self.mu, self.logvar = nn.Linear(32, 4), nn.Linear(32, 4)
        self.dec = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 20))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.randn(256, 20)
for epoch in range(3):
    model.train()
    for b in range(0, 256, 32):
        x = data[b:b + 32]
        recon, mu, logvar = model(x)
        kld = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
        loss = nn.functional.mse_loss(recon, x) + kld
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        total = sum(nn.functional.mse_loss(model(data[b:b + 32])[0], data[b:b + 32]).item() for b in range(0, 256, 32))
