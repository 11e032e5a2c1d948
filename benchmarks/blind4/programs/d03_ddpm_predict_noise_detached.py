"""Small DDPM on 2-D points: the denoiser helper is shared by sampling and training."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def cosine_alphas(T=100):
    s = 0.008
    t = torch.linspace(0, T, T + 1) / T
    f = torch.cos((t + s) / (1 + s) * math.pi / 2) ** 2
    return (f / f[0]).clamp(1e-5, 1.0)[1:]


class Denoiser(nn.Module):
    def __init__(self, d=2, hidden=128, T=100):
        super().__init__()
        self.t_embed = nn.Embedding(T, hidden)
        self.inp = nn.Linear(d, hidden)
        self.mlp = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, d))

    def forward(self, x, t):
        return self.mlp(self.inp(x) + self.t_embed(t))


class Diffusion:
    def __init__(self, model, T=100):
        self.model, self.T = model, T
        self.abar = cosine_alphas(T)

    def q_sample(self, x0, t, noise):
        a = self.abar[t].unsqueeze(-1)
        return a.sqrt() * x0 + (1 - a).sqrt() * noise

    def predict_noise(self, x_t, t):
        return self.model(x_t, t).detach()

    def training_loss(self, x0):
        t = torch.randint(0, self.T, (x0.shape[0],))
        noise = torch.randn_like(x0)
        eps = self.predict_noise(self.q_sample(x0, t, noise), t)
        return F.mse_loss(eps, noise)

    @torch.no_grad()
    def sample(self, n):
        x = torch.randn(n, 2)
        for step in reversed(range(self.T)):
            t = torch.full((n,), step, dtype=torch.long)
            a = self.abar[step]
            x = (x - (1 - a).sqrt() * self.predict_noise(x, t)) / a.sqrt()
        return x


def two_moons(n):
    theta = torch.rand(n) * math.pi
    top = torch.rand(n) > 0.5
    x = torch.stack([torch.cos(theta), torch.sin(theta)], -1)
    x[top] = torch.stack([1 - torch.cos(theta[top]), 0.5 - torch.sin(theta[top])], -1)
    return x + 0.05 * torch.randn_like(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    diff = Diffusion(Denoiser())
    opt = torch.optim.Adam(diff.model.parameters(), lr=2e-3)
    for step in range(50):
        loss = diff.training_loss(two_moons(128))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item(), diff.sample(8).shape)
