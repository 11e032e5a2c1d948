"""Score-matching style denoiser on 1-D signals with an optimizer_step helper and EMA weights."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvDenoiser(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(2, ch, 5, padding=2), nn.GroupNorm(4, ch), nn.SiLU(),
                                 nn.Conv1d(ch, ch, 5, padding=2), nn.GroupNorm(4, ch), nn.SiLU(),
                                 nn.Conv1d(ch, 1, 5, padding=2))

    def forward(self, x, sigma):
        s = sigma.view(-1, 1, 1).expand_as(x)
        return self.net(torch.cat([x, s.log()], 1))


class EMA:
    def __init__(self, model, decay=0.995):
        self.shadow = copy.deepcopy(model).eval()
        self.decay = decay

    @torch.no_grad()
    def update(self, model):
        for e, p in zip(self.shadow.parameters(), model.parameters()):
            e.lerp_(p, 1 - self.decay)


class DenoiseTrainer:
    def __init__(self, model, lr=2e-3, max_grad_norm=1.0):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr)
        self.ema = EMA(model)
        self.max_grad_norm = max_grad_norm

    def optimizer_step(self, loss):
        self.opt.zero_grad()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)
        loss.backward()
        self.opt.step()
        self.ema.update(self.model)

    def step(self, clean):
        sigma = torch.exp(torch.randn(clean.shape[0]) * 1.2 - 1.0)
        noisy = clean + sigma.view(-1, 1, 1) * torch.randn_like(clean)
        denoised = self.model(noisy, sigma)
        loss = F.mse_loss(denoised, clean)
        self.optimizer_step(loss)
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    t = torch.linspace(0, 6.28, 64)
    trainer = DenoiseTrainer(ConvDenoiser())
    for it in range(20):
        freqs = torch.rand(32, 1) * 3 + 1
        clean = torch.sin(freqs * t).unsqueeze(1)
        loss = trainer.step(clean)
    print(loss)
