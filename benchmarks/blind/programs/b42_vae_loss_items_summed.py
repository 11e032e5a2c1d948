# Beta-VAE with a loss dict for logging; the total is rebuilt from logged numbers (2025 forum).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
BETA = 4.0


class BetaVAE(nn.Module):
    def __init__(self, d=24, z=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 2 * z))
        self.decoder = nn.Sequential(nn.Linear(z, 32), nn.ReLU(), nn.Linear(32, d))

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.decoder(z), mu, logvar


def loss_terms(x, recon, mu, logvar):
    recon_loss = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return {"recon": recon_loss, "kl": kl}


data = torch.randn(120, 3) @ torch.randn(3, 24)
model = BetaVAE()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)

for epoch in range(6):
    for i in range(0, 120, 30):
        x = data[i:i + 30]
        recon, mu, logvar = model(x)
        terms = {k: v.item() for k, v in loss_terms(x, recon, mu, logvar).items()}
        loss = torch.tensor(terms["recon"] + BETA * terms["kl"], requires_grad=True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.3f} recon {terms['recon']:.3f} kl {terms['kl']:.3f}")
