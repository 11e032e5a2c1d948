# Mixed-precision training with GradScaler (disabled on CPU). The loop scales,
# backpropagates and updates the scaler, but scaler.step(optimizer) is missing.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
use_amp = device == "cuda"

model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler(device, enabled=use_amp)

images = torch.randn(96, 3, 24, 24)
labels = torch.randint(0, 5, (96,))
for epoch in range(3):
    for i in range(0, 96, 16):
        x, y = images[i:i + 16].to(device), labels[i:i + 16].to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device, dtype=torch.float16, enabled=use_amp):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.update()
    print(epoch, loss.item())
