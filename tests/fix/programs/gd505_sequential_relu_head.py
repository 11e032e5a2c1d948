"""A temperature forecaster whose output head ends in nn.ReLU ("temperatures are positive"), on targets that
are mostly below zero: the ReLU outputs 0 for every sample and the loss never moves."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(240, 6)
y = (x @ torch.tensor([0.8, -0.5, 0.3, 0.0, 0.2, 0.1]) - 4.0).unsqueeze(1)


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(32, 1), nn.ReLU())

    def forward(self, x):
        return self.head(self.body(x))


model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(10):
    for i in range(0, 240, 40):
        loss = nn.functional.l1_loss(model(x[i:i + 40]), y[i:i + 40])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
