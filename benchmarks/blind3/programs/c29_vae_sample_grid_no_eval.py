"""A convolutional-ish VAE with dropout; after training, reconstructions are scored on held-out data."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, d=32, z=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 2 * z))
        self.decoder = nn.Sequential(nn.Linear(z, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, d))

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, -1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.decoder(z), mu, logvar


def loss_fn(recon, x, mu, logvar):
    return F.mse_loss(recon, x, reduction="sum") - 0.5 * torch.sum(1 + logvar - mu ** 2 - logvar.exp())


@torch.no_grad()
def reconstruction_error(vae, data):
    errs = [F.mse_loss(vae(x)[0], x).item() for x in data]
    return sum(errs) / len(errs)


vae = VAE()
optimizer = torch.optim.Adam(vae.parameters(), lr=1e-3)
train_data = [torch.randn(16, 32) for _ in range(4)]
test_data = [torch.randn(16, 32) for _ in range(2)]
for epoch in range(2):
    for x in train_data:
        recon, mu, logvar = vae(x)
        loss = loss_fn(recon, x, mu, logvar)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print("test reconstruction", reconstruction_error(vae, test_data))
