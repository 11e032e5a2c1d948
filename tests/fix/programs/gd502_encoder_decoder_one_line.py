"""Denoising autoencoder for sensor windows: encoder and decoder stacks built on one line, each as
one residual block repeated (the list holds one object n times, so each stack is one block)."""
import torch
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))

    def forward(self, x):
        return x + self.mlp(self.norm(x))


class Denoiser(nn.Module):
    def __init__(self, channels: int = 12, width: int = 32, depth: int = 3):
        super().__init__()
        self.inp = nn.Linear(channels, width)
        self.encoder, self.decoder = nn.Sequential(*[Residual(width)] * depth), nn.Sequential(*[Residual(width)] * depth)
        self.out = nn.Linear(width, channels)

    def forward(self, x):
        return self.out(self.decoder(self.encoder(self.inp(x))))


torch.manual_seed(0)
clean = torch.sin(torch.linspace(0, 20, 512 * 12)).reshape(512, 12)
model = Denoiser()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
for epoch in range(6):
    for start in range(0, 512, 64):
        target = clean[start:start + 64]
        noisy = target + 0.3 * torch.randn_like(target)
        loss = nn.functional.mse_loss(model(noisy), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: reconstruction {loss.item():.4f}")
