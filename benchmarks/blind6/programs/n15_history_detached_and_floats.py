# Loss history kept correctly: detached tensors in a list, floats summed,
# predictions stored with .detach().cpu() for a later metric.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
loss_history, preds_history = [], []
running = 0.0

for step in range(40):
    x = torch.randn(32, 8)
    y = x[:, :2].sum(1, keepdim=True)
    out = model(x)
    loss = F.mse_loss(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    loss_history.append(loss.detach())
    preds_history.append(out.detach().cpu())
    running += loss.item()
    if (step + 1) % 10 == 0:
        print(step, running / 10, torch.stack(loss_history[-10:]).mean().item())
        running = 0.0
print(torch.cat(preds_history).shape)
