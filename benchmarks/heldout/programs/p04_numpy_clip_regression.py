# heldout: expect=GD102 line=19 alt_lines=21 static=yes
# Regression where predictions are clipped with numpy inside a helper before the loss.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)


def make_data(n=200):
    x = np.random.uniform(-2, 2, size=(n, 3)).astype(np.float32)
    y = (np.sin(x[:, :1]) + 0.5 * x[:, 1:2]).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


def clipped_predictions(model, x, lo=-3.0, hi=3.0):
    out = model(x)
    arr = out.detach().numpy()
    arr = np.clip(arr, lo, hi)
    return torch.from_numpy(arr)


x, y = make_data()
model = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()

for step in range(50):
    pred = clipped_predictions(model, x)
    loss = loss_fn(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(step, loss.item())
