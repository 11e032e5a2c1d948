"""Time-series forecaster (LSTM) on sliding windows of a noisy sine wave."""
import torch
import torch.nn as nn

torch.manual_seed(0)
WINDOW, HORIZON = 24, 1


class Forecaster(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, HORIZON)

    def forward(self, x):
        out, _ = self.lstm(x.unsqueeze(-1))
        return self.proj(out[:, -1])


def windows(series):
    xs = torch.stack([series[i:i + WINDOW] for i in range(len(series) - WINDOW - HORIZON)])
    ys = torch.stack([series[i + WINDOW:i + WINDOW + HORIZON] for i in range(len(series) - WINDOW - HORIZON)])
    return xs, ys


t = torch.linspace(0, 30, 400)
series = torch.sin(t) + 0.1 * torch.randn_like(t)
xs, ys = windows(series)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=32, shuffle=True)

model = Forecaster()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

for epoch in range(3):
    model.train()
    optimizer.zero_grad()
    epoch_loss = 0.0
    for xb, yb in loader:
        pred = model(xb)
        loss = criterion(pred, yb)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item() * len(xb)
    print(f"epoch {epoch} mse {epoch_loss / len(xs):.4f}")
