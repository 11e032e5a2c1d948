# heldout: expect=none
# Correct gradient accumulation (loss / k, one zero_grad per step) with OneCycleLR stepped per optimizer step.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

ACCUM = 4
X = torch.randn(512, 10)
Y = X @ torch.randn(10, 1)
loader = DataLoader(TensorDataset(X, Y), batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
epochs = 3
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, total_steps=epochs * len(loader) // ACCUM)
criterion = nn.MSELoss()


def train_epoch():
    model.train()
    optimizer.zero_grad()
    total = 0.0
    for i, (xb, yb) in enumerate(loader):
        loss = criterion(model(xb), yb) / ACCUM
        loss.backward()
        total += loss.item()
        if (i + 1) % ACCUM == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
    return total * ACCUM / len(loader)


for epoch in range(epochs):
    print(epoch, train_epoch())
