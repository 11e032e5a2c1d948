"""The loss read out as a number (`.item()`) and then backpropagated through a re-wrap; the run also keeps
the numbers in a history that it writes as JSON at the end. Dropping `.item()` makes the history a list
of tensors, and `json.dump` then fails: the edit must not be written."""
import json
import os
import tempfile

import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
history = []
for step in range(40):
    x = torch.randn(64, 8)
    optimizer.zero_grad()
    loss_value = nn.functional.mse_loss(model(x), x @ true_w).item()
    history.append(loss_value)
    loss = torch.tensor(loss_value, requires_grad=True)
    loss.backward()
    optimizer.step()

with open(os.path.join(tempfile.gettempdir(), "gd101_history.json"), "w") as handle:
    json.dump({"loss": history}, handle)
print(f"final loss {history[-1]:.4f}")
