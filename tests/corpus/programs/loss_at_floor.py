"""Fine-tuning a regression model that already sits at its optimum: the loss stays at the noise floor."""
import torch
from torch import nn

torch.manual_seed(0)
w_true = torch.randn(8, 1)
model = nn.Linear(8, 1)
with torch.no_grad():
    model.weight.copy_(w_true.T)
    model.bias.zero_()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()
for step in range(80):
    x = torch.randn(64, 8)
    y = x @ w_true + 0.3 * torch.randn(64, 1)
    loss = loss_fn(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")
