# Gradient accumulation for a small MLP regressor; model.zero_grad() placed at the boundary too early (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)

ACCUM_STEPS = 4
X = torch.randn(256, 10)
y = X[:, :1] * 3 - X[:, 1:2] + 0.1 * torch.randn(256, 1)

model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
criterion = nn.SmoothL1Loss()

for epoch in range(4):
    epoch_loss = 0.0
    for i, start in enumerate(range(0, 256, 16)):
        xb, yb = X[start:start + 16], y[start:start + 16]
        loss = criterion(model(xb), yb) / ACCUM_STEPS
        loss.backward()
        epoch_loss += loss.item()
        if (i + 1) % ACCUM_STEPS == 0:
            model.zero_grad()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
    print(f"epoch {epoch} loss {epoch_loss * ACCUM_STEPS / 16:.4f}")
