# A small VAE trainer. Clipping was moved into a "prepare" step that runs before backward.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, d=32, z=4):
        super().__init__()
        self.enc = nn.Linear(d, 64)
        self.mu = nn.Linear(64, z)
        self.logvar = nn.Linear(64, z)
        self.dec = nn.Sequential(nn.Linear(z, 64), nn.ReLU(), nn.Linear(64, d))

    def forward(self, x):
        h = F.relu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


class Trainer:
    def __init__(self, model, max_norm=5.0):
        self.model = model
        self.max_norm = max_norm
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step(self, x):
        recon, mu, logvar = self.model(x)
        rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
        kld = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
        loss = rec + kld
        self.optimizer.zero_grad()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = Trainer(VAE())
for step in range(30):
    print(step, trainer.step(torch.randn(64, 32)))
