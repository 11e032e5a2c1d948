# Time-series forecaster (1-D conv), plain script; the running loss is summed
# as a tensor and printed per epoch.
import torch
import torch.nn as nn

torch.manual_seed(0)
t = torch.arange(0, 3000, dtype=torch.float32)
series = torch.sin(t * 0.02) + 0.3 * torch.sin(t * 0.11) + 0.05 * torch.randn_like(t)
WINDOW, HORIZON = 48, 6
X = torch.stack([series[i:i + WINDOW] for i in range(0, 2900, 4)]).unsqueeze(1)
Y = torch.stack([series[i + WINDOW:i + WINDOW + HORIZON] for i in range(0, 2900, 4)])

model = nn.Sequential(nn.Conv1d(1, 16, 5, padding=2), nn.ReLU(), nn.Conv1d(16, 16, 5, padding=2), nn.ReLU(),
                      nn.Flatten(), nn.Linear(16 * WINDOW, HORIZON))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()

for epoch in range(3):
    running_loss = 0
    n_batches = 0
    for i in range(0, len(X), 64):
        optimizer.zero_grad()
        loss = loss_fn(model(X[i:i + 64]), Y[i:i + 64])
        loss.backward()
        optimizer.step()
        running_loss += loss
        n_batches += 1
    print(f"epoch {epoch}: {running_loss / n_batches}")
