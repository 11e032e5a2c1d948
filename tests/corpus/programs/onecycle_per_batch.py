"""OneCycleLR stepped every batch (as intended), with warm-up, and logging with .item()."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
epochs, batches = 3, 12
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=batches)
w = torch.randn(8, 3)
history = []
for epoch in range(epochs):
    running = 0.0
    for b in range(batches):
        x = torch.randn(32, 8)
        y = (x @ w).argmax(dim=1)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        running += loss.item()
    history.append(running / batches)
print("epoch losses", [round(v, 3) for v in history])
