# Quantile regression with a hand-written pinball loss; helper returns a dict of losses (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)

QUANTILES = torch.tensor([0.1, 0.5, 0.9])
x = torch.rand(200, 1) * 6
y = torch.sin(x).squeeze(1) + 0.3 * torch.randn(200)


class QuantileNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.median = nn.Linear(32, 1)
        self.spread = nn.Linear(32, 2)

    def forward(self, x):
        h = self.body(x)
        return self.median(h), self.spread(h)


def compute_losses(median, spread, target):
    err = target - median
    med_loss = torch.max(0.5 * err, (0.5 - 1) * err).mean()
    lo = median.squeeze(1) - spread[:, 0].abs()
    hi = median.squeeze(1) + spread[:, 1].abs()
    lo_loss = torch.max(0.1 * (target - lo), -0.9 * (target - lo)).mean()
    hi_loss = torch.max(0.9 * (target - hi), -0.1 * (target - hi)).mean()
    return {"median": med_loss, "interval": lo_loss + hi_loss, "total": med_loss + lo_loss + hi_loss}


model = QuantileNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(8):
    for i in range(0, 200, 40):
        median, spread = model(x[i:i + 40])
        losses = compute_losses(median, spread, y[i:i + 40])
        optimizer.zero_grad()
        losses["total"].backward()
        optimizer.step()
    print(f"epoch {epoch} median {losses['median'].item():.4f} interval {losses['interval'].item():.4f}")
