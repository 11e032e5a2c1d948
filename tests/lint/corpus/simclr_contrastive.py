"""SimCLR-style contrastive pre-training with NT-Xent loss and a warm-up + cosine schedule per step."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(3 * 32 * 32, 512), nn.ReLU(), nn.Linear(512, 512))
        self.projector = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, dim))

    def forward(self, x):
        return self.projector(self.backbone(x.flatten(1)))


def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / temperature
    n = z1.size(0)
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


model = Encoder()
optimizer = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9, weight_decay=1e-6)
total_steps, warmup_steps = 10000, 500
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer,
    lambda s: s / warmup_steps if s < warmup_steps else 0.5 * (1 + math.cos(math.pi * (s - warmup_steps) / (total_steps - warmup_steps))),
)
step = 0
for epoch in range(100):
    for (x1, x2), _ in loader:
        loss = nt_xent(model(x1), model(x2))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        step += 1
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.4f}")
