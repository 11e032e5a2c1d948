"""Build the model on the meta device (no memory), infer shapes there, then materialise it and train."""
import torch
from torch import nn

torch.manual_seed(0)
with torch.device("meta"):
    model = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 1))
probe = model(torch.empty(4, 8, device="meta"))  # shape inference without memory
meta_loss = nn.functional.mse_loss(probe, torch.empty(4, 1, device="meta"))
model = model.to_empty(device="cpu")
for layer in model:
    if isinstance(layer, nn.Linear):
        layer.reset_parameters()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
x, y = torch.randn(64, 8), torch.randn(64, 1)
for step in range(5):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(tuple(probe.shape), meta_loss.device, round(loss.item(), 4))
