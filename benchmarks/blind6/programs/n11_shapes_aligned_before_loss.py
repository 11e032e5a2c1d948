# (N, 1) predictions aligned with their targets before the loss: squeeze(1) for
# MSE, unsqueeze(1) on the target for a hand-written loss, view_as for Huber.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
X = torch.randn(400, 5)
y = X.sum(1) + 0.1 * torch.randn(400)

for epoch in range(5):
    for i in range(0, 400, 40):
        xb, yb = X[i:i + 40], y[i:i + 40]
        pred = model(xb)
        mse = F.mse_loss(pred.squeeze(1), yb)
        mae = (pred - yb.unsqueeze(1)).abs().mean()
        hub = F.huber_loss(pred, yb.view_as(pred))
        loss = mse + 0.1 * mae + 0.1 * hub
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, loss.item())
