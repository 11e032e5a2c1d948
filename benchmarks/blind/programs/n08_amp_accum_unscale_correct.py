# Correct: mixed precision + gradient accumulation; unscale_ before clipping, zero_grad after step.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
ACCUM = 2

model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler(device)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
X = torch.randn(96, 12)
Y = X[:, :3].argmax(1)

for epoch in range(5):
    model.train()
    for i, start in enumerate(range(0, 96, 12)):
        x, y = X[start:start + 12].to(device), Y[start:start + 12].to(device)
        with torch.autocast(device_type=device, dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y) / ACCUM
        scaler.scale(loss).backward()
        if (i + 1) % ACCUM == 0:
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    scheduler.step()
    print(f"epoch {epoch} loss {loss.item() * ACCUM:.4f} lr {scheduler.get_last_lr()[0]:.4f}")
