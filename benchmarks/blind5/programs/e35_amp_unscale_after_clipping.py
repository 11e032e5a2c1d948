"""Mixed-precision diffusion toy (noise prediction on 16-d vectors) with gradient clipping."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
amp_dtype = torch.float16 if device == "cuda" else torch.bfloat16


class NoisePredictor(nn.Module):
    def __init__(self, d=16, hidden=64, steps=50):
        super().__init__()
        self.t_embed = nn.Embedding(steps, hidden)
        self.inp = nn.Linear(d, hidden)
        self.mid = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.out = nn.Linear(hidden, d)

    def forward(self, x, t):
        return self.out(self.mid(self.inp(x) + self.t_embed(t)))


def add_noise(x0, t, betas):
    abar = torch.cumprod(1 - betas, 0)[t].unsqueeze(-1)
    noise = torch.randn_like(x0)
    return abar.sqrt() * x0 + (1 - abar).sqrt() * noise, noise


def optimizer_step(model, optimizer, scaler, loss, max_norm):
    scaler.scale(loss).backward()
    grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return grad_norm


steps = 50
betas = torch.linspace(1e-4, 0.02, steps)
model = NoisePredictor(steps=steps).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler(device)
data = torch.randn(256, 16) * 0.5 + 1.0

for it in range(30):
    x0 = data[torch.randint(0, 256, (32,))].to(device)
    t = torch.randint(0, steps, (32,), device=device)
    x_t, noise = add_noise(x0, t, betas.to(device))
    with torch.autocast(device_type=device, dtype=amp_dtype):
        loss = F.mse_loss(model(x_t, t), noise)
    gn = optimizer_step(model, optimizer, scaler, loss, max_norm=1.0)
    if it % 10 == 0:
        print(it, loss.item(), gn.item())
