"""A feature-gating classifier that masks its sigmoid gate in place: sigmoid saved its output for backward,
and `*=` overwrote it, so backward() fails."""
import torch
from torch import nn

torch.manual_seed(0)


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(12, 12)
        self.head = nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 3))

    def forward(self, x, keep):
        g = torch.sigmoid(self.gate(x))
        g *= keep
        return self.head(x * g)


x = torch.randn(192, 12)
y = x[:, :3].argmax(1)
keep = (torch.rand(12) > 0.2).float()
model = Gated()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-2)

for epoch in range(12):
    for i in range(0, 192, 48):
        loss = nn.functional.cross_entropy(model(x[i:i + 48], keep), y[i:i + 48])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
