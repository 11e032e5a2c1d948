# A minimal DDPM on 2-D points. The denoiser's prediction in p_losses is wrapped in no_grad
# (copied from the sampling code).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T = 50


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.t_embed = nn.Embedding(T, 16)
        self.net = nn.Sequential(nn.Linear(2 + 16, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, self.t_embed(t)], dim=-1))


class Diffusion:
    def __init__(self, model):
        self.model = model
        betas = torch.linspace(1e-4, 0.02, T)
        self.alphas_cumprod = torch.cumprod(1 - betas, dim=0)

    def q_sample(self, x0, t, noise):
        a = self.alphas_cumprod[t].unsqueeze(-1)
        return a.sqrt() * x0 + (1 - a).sqrt() * noise

    def p_losses(self, x0):
        t = torch.randint(0, T, (x0.size(0),))
        noise = torch.randn_like(x0)
        x_t = self.q_sample(x0, t, noise)
        with torch.no_grad():
            predicted = self.model(x_t, t)
        return F.mse_loss(predicted, noise)


model = Denoiser()
diffusion = Diffusion(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(40):
    x0 = torch.randn(128, 2) * torch.tensor([1.0, 0.3])
    loss = diffusion.p_losses(x0)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(step, loss.item())
