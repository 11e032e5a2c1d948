"""GD109: a weight that requires grad edited in place outside torch.no_grad()."""
import torch

torch.manual_seed(0)
w = torch.randn(8, 1, requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)

for step in range(5):
    x, y = torch.randn(32, 8), torch.randn(32, 1)
    loss = ((x @ w - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    w.clamp_(-1.0, 1.0)  # expect: GD109
