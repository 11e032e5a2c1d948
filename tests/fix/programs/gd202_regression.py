"""zero_grad() between backward() and step(): the step never sees a gradient."""
import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(2):
    for batch in range(15):
        x = torch.randn(64, 8)
        y = x @ true_w
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.zero_grad()  # "clean up before the step"
        opt.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
