"""Multi-horizon forecaster: an MLP over a lookback window predicts the next H values."""
import torch
import torch.nn as nn

torch.manual_seed(0)
LOOKBACK, H = 32, 8


class HorizonHead(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.proj = nn.Linear(hidden, H)

    def forward(self, h):
        return self.proj(h).unsqueeze(1)


class Forecaster(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(LOOKBACK, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = HorizonHead(hidden)

    def forward(self, window):
        return self.head(self.encoder(window))


class ForecastTask:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.criterion = nn.L1Loss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def step(self, window, future):
        forecast = self.model(window)
        loss = self.criterion(forecast, future)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def sliding(series):
    idx = torch.arange(len(series) - LOOKBACK - H)
    x = torch.stack([series[i:i + LOOKBACK] for i in idx])
    y = torch.stack([series[i + LOOKBACK:i + LOOKBACK + H] for i in idx])
    return x, y


t = torch.arange(1000).float()
series = torch.sin(t / 10) + 0.5 * torch.sin(t / 37) + 0.05 * torch.randn(1000)
x, y = sliding(series)
task = ForecastTask(Forecaster())
for epoch in range(3):
    perm = torch.randperm(len(x))
    for i in range(0, len(x), 64):
        idx = perm[i:i + 64]
        loss = task.step(x[idx], y[idx])
    print(epoch, round(loss, 4))
