"""DDPM-style noise prediction with min-SNR loss weighting."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T = 100


def cosine_alphas_cumprod(steps, s=0.008):
    t = torch.linspace(0, steps, steps + 1)
    f = torch.cos(((t / steps) + s) / (1 + s) * math.pi / 2) ** 2
    return (f / f[0])[1:].clamp(1e-5, 0.9999)


class Denoiser(nn.Module):
    def __init__(self, c=1, hidden=16):
        super().__init__()
        self.t_emb = nn.Embedding(T, hidden)
        self.inp = nn.Conv2d(c, hidden, 3, padding=1)
        self.mid = nn.Conv2d(hidden, hidden, 3, padding=1)
        self.out = nn.Conv2d(hidden, c, 3, padding=1)

    def forward(self, x, t):
        h = F.silu(self.inp(x) + self.t_emb(t)[:, :, None, None])
        return self.out(F.silu(self.mid(h)))


alphas_cumprod = cosine_alphas_cumprod(T)
snr = alphas_cumprod / (1 - alphas_cumprod)


def min_snr_weights(t, gamma=5.0):
    s = snr[t]
    return torch.clamp(s, max=gamma) / s


def diffusion_loss(model, x0):
    b = x0.shape[0]
    t = torch.randint(0, T, (b,))
    noise = torch.randn_like(x0)
    a = alphas_cumprod[t].view(b, 1, 1, 1)
    x_t = a.sqrt() * x0 + (1 - a).sqrt() * noise
    mse = F.mse_loss(model(x_t, t), noise, reduction="none").mean(dim=(1, 2, 3))
    return mse * min_snr_weights(t)


model = Denoiser()
opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
images = torch.rand(64, 1, 8, 8) * 2 - 1
for step in range(10):
    batch = images[torch.randint(0, 64, (16,))]
    loss = diffusion_loss(model, batch)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(step, loss.mean().item())
