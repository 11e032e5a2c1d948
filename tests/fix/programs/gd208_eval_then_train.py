"""The model is evaluated before training (eval mode) and never put back in training mode: dropout stays off."""
import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)


def evaluate(net):
    net.eval()
    with torch.no_grad():
        x = torch.randn(256, 8)
        return nn.functional.mse_loss(net(x), x @ true_w).item()


print(f"before training: {evaluate(model):.3f}")
for step in range(30):
    x = torch.randn(64, 8)
    loss = nn.functional.mse_loss(model(x), x @ true_w)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"after training: {evaluate(model):.3f}")
