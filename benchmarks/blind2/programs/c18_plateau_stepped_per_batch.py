# Regression with ReduceLROnPlateau; the scheduler is stepped with each batch's loss
# inside the batch loop of a train_one_epoch helper.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(512, 8)
Y = X @ torch.randn(8, 1) + 0.1 * torch.randn(512, 1)
loader = DataLoader(TensorDataset(X, Y), batch_size=32, shuffle=True)

model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)
criterion = nn.MSELoss()


def train_one_epoch(model, loader, optimizer, scheduler):
    total = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step(loss.item())
        total += loss.item()
    return total / len(loader)


for epoch in range(5):
    avg = train_one_epoch(model, loader, optimizer, scheduler)
    print(epoch, avg, optimizer.param_groups[0]["lr"])
