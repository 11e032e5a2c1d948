"""A train step decorated with @torch.no_grad() (copied from the evaluation helper above it): the loss has no
graph, so backward() fails."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(240, 10)
y = (x[:, :2].sum(1) > 0).long()
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


@torch.no_grad()
def evaluate():
    return (model(x).argmax(1) == y).float().mean().item()


@torch.no_grad()
def train_step(xb, yb):
    loss = nn.functional.cross_entropy(model(xb), yb)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


for epoch in range(6):
    for i in range(0, 240, 40):
        loss = train_step(x[i:i + 40], y[i:i + 40])
    print(f"epoch {epoch}: loss {loss:.3f} acc {evaluate():.3f}")
