"""VAE on synthetic 2-D data; the trainer keeps a loss history for plotting later."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, din=2, hidden=32, z=2):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(din, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, z)
        self.logvar = nn.Linear(hidden, z)
        self.dec = nn.Sequential(nn.Linear(z, hidden), nn.ReLU(), nn.Linear(hidden, din))

    def forward(self, x):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


def elbo_terms(recon, x, mu, logvar):
    rec = F.mse_loss(recon, x, reduction="sum") / x.shape[0]
    kl = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return rec, kl


class VAETrainer:
    def __init__(self, model, beta=1.0, lr=1e-3):
        self.model = model
        self.beta = beta
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.history = {"rec": [], "kl": []}

    def step(self, x):
        recon, mu, logvar = self.model(x)
        rec, kl = elbo_terms(recon, x, mu, logvar)
        loss = rec + self.beta * kl
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.history["rec"].append(rec)
        self.history["kl"].append(kl)

    def summary(self):
        return {k: torch.stack(v[-10:]).mean().item() for k, v in self.history.items()}


angles = torch.rand(2000) * 6.28
data = torch.stack([angles.cos(), angles.sin()], 1) + 0.05 * torch.randn(2000, 2)
trainer = VAETrainer(VAE())
for epoch in range(3):
    for i in range(0, 2000, 100):
        trainer.step(data[i:i + 100])
    print(epoch, trainer.summary())
