# Temperature-anomaly regressor whose output layer ends in ReLU; targets are mostly negative (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)

X = torch.randn(200, 5)
y = (X @ torch.tensor([0.5, -1.0, 0.3, 0.0, 0.2]) - 3.0).unsqueeze(1)


class AnomalyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.output = nn.Sequential(nn.Linear(32, 1), nn.ReLU())

    def forward(self, x):
        return self.output(self.hidden(x))


model = AnomalyNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.L1Loss()

for epoch in range(8):
    for i in range(0, 200, 40):
        pred = model(X[i:i + 40])
        loss = criterion(pred, y[i:i + 40])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} l1 {loss.item():.4f} pred std {pred.std().item():.4f}")
