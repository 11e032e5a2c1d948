# Multi-task tabular model: one shared trunk, a head per task kept in a Python list (2024 thread).
import torch
import torch.nn as nn

torch.manual_seed(0)

TASKS = ["price", "demand", "returns"]


class MultiTaskNet(nn.Module):
    def __init__(self, n_in=12, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.heads = [nn.Linear(hidden, 1) for _ in TASKS]

    def forward(self, x):
        h = self.trunk(x)
        return {name: head(h).squeeze(-1) for name, head in zip(TASKS, self.heads)}


X = torch.randn(200, 12)
targets = {name: X[:, i] * 2 + X[:, i + 3] for i, name in enumerate(TASKS)}

model = MultiTaskNet()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
mse = nn.MSELoss()

for epoch in range(6):
    for i in range(0, 200, 50):
        preds = model(X[i:i + 50])
        losses = {name: mse(preds[name], targets[name][i:i + 50]) for name in TASKS}
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} " + " ".join(f"{k}={v.item():.3f}" for k, v in losses.items()))
