# Mixed precision plus gradient accumulation for an audio classifier (SGD);
# the scaled micro-batch loss is not divided by the accumulation count.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
ACCUM = 4

model = nn.Sequential(nn.Conv1d(1, 8, 16, stride=8), nn.ReLU(), nn.Conv1d(8, 16, 8, stride=4), nn.ReLU(),
                      nn.AdaptiveMaxPool1d(1), nn.Flatten(), nn.Linear(16, 4)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
scaler = torch.amp.GradScaler(device, enabled=(device == "cuda"))

clips = torch.randn(128, 1, 2000)
labels = torch.randint(0, 4, (128,))
optimizer.zero_grad(set_to_none=True)
for epoch in range(2):
    for i in range(0, 128, 8):
        x, y = clips[i:i + 8].to(device), labels[i:i + 8].to(device)
        with torch.autocast(device_type=device, dtype=torch.float16, enabled=(device == "cuda")):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        if (i // 8 + 1) % ACCUM == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
    print(epoch, loss.item())
