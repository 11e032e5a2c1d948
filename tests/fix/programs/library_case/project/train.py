"""The project's script calls a helper that lives outside the project (on sys.path, like an installed package)."""
import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trainer import fit  # noqa: E402

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
xs = [torch.randn(64, 8) for _ in range(20)]
fit(model, optimizer, [(x, x @ true_w) for x in xs])
