# heldout: expect=GD102 line=12 alt_lines=14 static=yes
# A custom loss module that post-processes predictions with numpy before computing the loss.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)


class ClampedMSE(nn.Module):
    def forward(self, pred, target):
        arr = pred.cpu().detach().numpy()
        arr = np.where(arr < 0, 0.0, arr)
        pred = torch.tensor(arr, dtype=torch.float32)
        return ((pred - target) ** 2).mean()


model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
criterion = ClampedMSE()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(128, 4)
y = x[:, :1].abs()
for step in range(20):
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
