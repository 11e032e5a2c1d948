"""GD111: a learnable temperature initialised past its clamp bound: its gradient is always 0."""
# allow: GD306
import torch
from torch import nn


class ScaledClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        self.log_scale = nn.Parameter(torch.tensor(3.0))  # the clamp below keeps it in [-1, 1]

    def forward(self, x):
        scale = self.log_scale.clamp(-1.0, 1.0).exp()  # expect: GD111
        return self.body(x) * scale


torch.manual_seed(0)
model = ScaledClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(30):
    x, y = torch.randn(32, 16), torch.randint(0, 4, (32,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
