"""Churn model (tabular, BatchNorm + Dropout): train, then stream test-set predictions in chunks."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ChurnNet(nn.Module):
    def __init__(self, din=14):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(din, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.4),
                                  nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.4))
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        return self.out(self.body(x)).squeeze(-1)


def iterate_predictions(model, features, chunk=50):
    with torch.no_grad():
        for start in range(0, len(features), chunk):
            probs = torch.sigmoid(model(features[start:start + chunk]))
            yield from zip(range(start, start + len(probs)), probs.tolist())


def fit(model, x, y, epochs=4):
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=64, shuffle=True)
    model.train()
    for epoch in range(epochs):
        for xb, yb in loader:
            loss = F.binary_cross_entropy_with_logits(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


x = torch.randn(900, 14) * 2 + 1
y = ((x[:, 0] - x[:, 3] + 0.5 * torch.randn(900)) > 0).float()
model = ChurnNet()
fit(model, x[:700], y[:700])
rows = [(i, round(p, 4)) for i, p in iterate_predictions(model, x[700:])]
acc = sum((p > 0.5) == bool(y[700 + i]) for i, p in rows) / len(rows)
print("test rows", len(rows), "accuracy", round(acc, 3))
