"""The training loop of accelerate's own examples: prepare(), accelerator.backward(loss).

argv[1]: "unused" (a head that forward never uses), "no_zero_grad" (gradients never
cleared) or "none" (the near miss: correct code).
"""

import sys

import torch
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

BUG = sys.argv[1]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.aux = nn.Linear(16, 2)
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        h = self.encoder(x)
        if BUG == "unused":
            return self.head(h)
        return self.head(h) + self.aux(h)


torch.manual_seed(0)
accelerator = Accelerator(cpu=True)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
data = TensorDataset(torch.randn(96, 8), torch.randint(0, 2, (96,)))
loader = DataLoader(data, batch_size=8, shuffle=True)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
for x, y in loader:
    if BUG != "no_zero_grad":
        optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    accelerator.backward(loss)
    optimizer.step()
