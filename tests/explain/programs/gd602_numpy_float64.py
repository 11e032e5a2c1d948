"""Data prepared with numpy (float64) fed to a float32 model."""
import numpy as np
import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 16), nn.ReLU())
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(self.body(x))  # raises


rng = np.random.default_rng(0)
X = rng.normal(size=(40, 3))
Y = X @ np.array([[1.0], [-2.0], [0.5]])
model = Regressor()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for start in range(0, 40, 10):
    x = torch.from_numpy(X[start:start + 10])
    y = torch.from_numpy(Y[start:start + 10])
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
