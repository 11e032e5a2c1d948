# Truncated BPTT over a long sine series; the hidden state is carried between chunks (2024 thread).
import torch
import torch.nn as nn

torch.manual_seed(0)

series = torch.sin(torch.linspace(0, 40, 801)).unsqueeze(-1)
CHUNK = 40


class Forecaster(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.rnn = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x, h=None):
        y, h = self.rnn(x, h)
        return self.out(y), h


model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.MSELoss()

for epoch in range(3):
    hidden = None
    total = 0.0
    for start in range(0, len(series) - CHUNK - 1, CHUNK):
        x = series[start:start + CHUNK].unsqueeze(0)
        y = series[start + 1:start + CHUNK + 1].unsqueeze(0)
        pred, hidden = model(x, hidden)
        loss = criterion(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total:.4f}")
