# Training with an exponential moving average of the weights; evaluation uses
# the EMA copy, but eval() is called on the online model only.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(20, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 4))
ema_model = copy.deepcopy(model)
for p in ema_model.parameters():
    p.requires_grad_(False)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


@torch.no_grad()
def update_ema(decay=0.99):
    for ema_p, p in zip(ema_model.parameters(), model.parameters()):
        ema_p.mul_(decay).add_(p, alpha=1 - decay)


X, Y = torch.randn(800, 20), torch.randint(0, 4, (800,))
X_val, Y_val = torch.randn(200, 20), torch.randint(0, 4, (200,))
for epoch in range(4):
    model.train()
    for i in range(0, 800, 32):
        loss = F.cross_entropy(model(X[i:i + 32]), Y[i:i + 32])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        update_ema()
    model.eval()
    with torch.no_grad():
        val_acc = (ema_model(X_val).argmax(1) == Y_val).float().mean().item()
    print(f"epoch {epoch}: loss {loss.item():.3f} EMA val acc {val_acc:.3f}")
