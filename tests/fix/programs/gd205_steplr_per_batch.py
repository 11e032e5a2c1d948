"""An epoch scheduler (StepLR, step_size in epochs) stepped after every batch: the rate collapses in epoch one."""
import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

for epoch in range(3):
    for batch in range(10):
        x = torch.randn(64, 8)
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), x @ true_w)
        loss.backward()
        optimizer.step()
        scheduler.step()
