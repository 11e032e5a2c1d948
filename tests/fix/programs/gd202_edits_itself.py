"""zero_grad() between backward() and step(); at the end the script rewrites its own file (as an editor saving
it while training ran would), so the file no longer is the one graddoctor ran."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(10):
    x = torch.randn(16, 8)
    loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
    loss.backward()
    opt.zero_grad()
    opt.step()

with open(__file__, "a") as me:
    me.write("# saved while training ran\n")
