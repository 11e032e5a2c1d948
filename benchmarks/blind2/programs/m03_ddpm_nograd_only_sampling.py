# A minimal DDPM on 2-D points: no_grad only in the sampler, which runs after training.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T = 50


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.t_embed = nn.Embedding(T, 16)
        self.net = nn.Sequential(nn.Linear(2 + 16, 64), nn.SiLU(), nn.Linear(64, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, self.t_embed(t)], dim=-1))


class Diffusion:
    def __init__(self, model):
        self.model = model
        self.betas = torch.linspace(1e-4, 0.02, T)
        self.alphas_cumprod = torch.cumprod(1 - self.betas, dim=0)

    def p_losses(self, x0):
        t = torch.randint(0, T, (x0.size(0),))
        noise = torch.randn_like(x0)
        a = self.alphas_cumprod[t].unsqueeze(-1)
        x_t = a.sqrt() * x0 + (1 - a).sqrt() * noise
        predicted = self.model(x_t, t)
        return F.mse_loss(predicted, noise)

    @torch.no_grad()
    def sample(self, n):
        x = torch.randn(n, 2)
        for i in reversed(range(T)):
            t = torch.full((n,), i, dtype=torch.long)
            eps = self.model(x, t)
            a, ab = 1 - self.betas[i], self.alphas_cumprod[i]
            x = (x - (1 - a) / (1 - ab).sqrt() * eps) / a.sqrt()
        return x


model = Denoiser()
diffusion = Diffusion(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(40):
    loss = diffusion.p_losses(torch.randn(128, 2))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(diffusion.sample(16).mean(0))
