"""A tensor subclass that counts the ops run on it (as quantisation and tracing libraries do)."""
import torch
from torch import nn

calls = {"n": 0}


class Counted(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        calls["n"] += 1
        return super().__torch_function__(func, types, args, kwargs or {})


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4).as_subclass(Counted)
y = torch.randn(16, 1)
for step in range(4):
    out = model(x)
    loss = nn.functional.mse_loss(out.as_subclass(torch.Tensor), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("ops on the subclass:", calls["n"], type(out).__name__, round(loss.item(), 4))
