"""FSDP-style: free each parameter's storage after the step, re-allocate before the next forward."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sizes = {p: p.data.untyped_storage().size() for p in model.parameters()}
saved = {p: p.detach().clone() for p in model.parameters()}
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(4):
    for p in model.parameters():  # _alloc_storage
        p.data.untyped_storage().resize_(sizes[p])
        p.data.copy_(saved[p])
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    for p in model.parameters():  # _free_storage
        saved[p] = p.detach().clone()
        p.data.untyped_storage().resize_(0)
print("SUCCESS", round(loss.item(), 4))
