"""ReduceLROnPlateau stepped once per epoch on a validation loss computed under no_grad."""
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.Dropout(0.1), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=1)
w = torch.randn(8, 1)
val_x = torch.randn(64, 8)
for epoch in range(4):
    model.train()
    for b in range(10):
        x = torch.randn(32, 8)
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), x @ w)
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = nn.functional.mse_loss(model(val_x), val_x @ w)
    scheduler.step(val_loss.item())
