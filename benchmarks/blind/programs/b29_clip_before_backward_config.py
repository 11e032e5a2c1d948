# Config-driven training step; clipping placed right after zero_grad, before backward (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)

config = {"lr": 3e-3, "grad_clip": 0.5, "epochs": 5, "batch_size": 32}

X = torch.randn(192, 6)
y = torch.tanh(X @ torch.randn(6, 2))


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 48), nn.SiLU(), nn.Linear(48, 48), nn.SiLU())
        self.out = nn.Linear(48, 2)

    def forward(self, x):
        return self.out(self.body(x))


def train_step(model, optimizer, criterion, xb, yb, grad_clip):
    optimizer.zero_grad(set_to_none=True)
    if grad_clip > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    loss = criterion(model(xb), yb)
    loss.backward()
    optimizer.step()
    return loss.item()


model = Regressor()
optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
criterion = nn.MSELoss()
for epoch in range(config["epochs"]):
    bs = config["batch_size"]
    losses = [train_step(model, optimizer, criterion, X[i:i + bs], y[i:i + bs], config["grad_clip"])
              for i in range(0, len(X), bs)]
    print(f"epoch {epoch} loss {sum(losses) / len(losses):.4f}")
