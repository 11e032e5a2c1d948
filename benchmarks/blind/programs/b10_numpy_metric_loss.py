# Regression with a "custom metric as loss" computed in numpy (forum post, 2024).
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

X = torch.randn(160, 8)
true_w = torch.randn(8, 1)
y = X @ true_w + 0.1 * torch.randn(160, 1)


def smape(pred, target):
    return np.mean(2 * np.abs(pred - target) / (np.abs(pred) + np.abs(target) + 1e-6))


model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(8):
    perm = torch.randperm(160)
    for i in range(0, 160, 32):
        idx = perm[i:i + 32]
        out = model(X[idx])
        pred_np = out.detach().cpu().numpy()
        loss = torch.from_numpy(np.asarray(smape(pred_np, y[idx].numpy()))).float()
        loss.requires_grad = True
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} smape {loss.item():.4f}")
