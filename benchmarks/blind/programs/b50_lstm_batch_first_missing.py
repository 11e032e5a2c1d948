# Sensor sequence classifier; DataLoader yields (batch, time, features) but the LSTM is seq-first (2025).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

N, T, F_IN, N_CLS = 120, 20, 3, 2
signals = torch.randn(N, T, F_IN)
labels = (signals[:, :, 0].cumsum(1)[:, -1] > 0).long()
loader = DataLoader(TensorDataset(signals, labels), batch_size=24, shuffle=True)


class SensorLSTM(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.lstm = nn.LSTM(F_IN, hidden, num_layers=1)
        self.fc = nn.Linear(hidden, N_CLS)

    def forward(self, x):
        out, (h_n, c_n) = self.lstm(x)
        return self.fc(out[:, -1, :])


model = SensorLSTM()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(5):
    correct = 0
    for xb, yb in loader:
        logits = model(xb)
        loss = criterion(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += (logits.argmax(1) == yb).sum().item()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {correct / N:.3f}")
