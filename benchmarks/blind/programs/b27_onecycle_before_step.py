# OneCycleLR per batch, but the scheduler is stepped before the optimizer (2025 forum).
import torch
import torch.nn as nn

torch.manual_seed(0)

X = torch.randn(240, 16)
y = (X[:, :4].sum(1) > 0).long()

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
EPOCHS, BS = 4, 24
steps_per_epoch = len(X) // BS
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-2, epochs=EPOCHS, steps_per_epoch=steps_per_epoch)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(X))
    for b in range(steps_per_epoch):
        idx = perm[b * BS:(b + 1) * BS]
        optimizer.zero_grad()
        loss = criterion(model(X[idx]), y[idx])
        loss.backward()
        scheduler.step()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.2e}")
