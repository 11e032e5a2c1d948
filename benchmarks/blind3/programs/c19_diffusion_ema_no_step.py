"""DDPM-style denoiser on 1-D signals with an EMA copy of the weights."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

T = 50
betas = torch.linspace(1e-4, 0.02, T)
alphas_bar = torch.cumprod(1 - betas, 0)


class Denoiser(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d + 1, 64), nn.SiLU(), nn.Linear(64, d))

    def forward(self, x, t):
        return self.net(torch.cat([x, t.float().unsqueeze(-1) / T], -1))


model = Denoiser()
ema = copy.deepcopy(model).requires_grad_(False)
optimizer = torch.optim.Adam(model.parameters(), lr=2e-4)


@torch.no_grad()
def ema_update(ema_model, online, decay=0.999):
    for pe, po in zip(ema_model.parameters(), online.parameters()):
        pe.mul_(decay).add_(po, alpha=1 - decay)


for step in range(5):
    x0 = torch.randn(8, 16)
    t = torch.randint(0, T, (8,))
    noise = torch.randn_like(x0)
    ab = alphas_bar[t].unsqueeze(-1)
    xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
    loss = F.mse_loss(model(xt, t), noise)
    optimizer.zero_grad()
    loss.backward()
    ema_update(ema, model)
