# AMP training loop for a small ViT-like patch model, plain script. Gradient
# clipping sits between scaler.scale(loss).backward() and scaler.step.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"


class PatchNet(nn.Module):
    def __init__(self, patch=4, d=48, n_classes=10):
        super().__init__()
        self.embed = nn.Conv2d(3, d, patch, stride=patch)
        self.block = nn.TransformerEncoderLayer(d, 4, 96, batch_first=True)
        self.head = nn.Linear(d, n_classes)

    def forward(self, x):
        tokens = self.embed(x).flatten(2).transpose(1, 2)
        return self.head(self.block(tokens).mean(1))


model = PatchNet().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler(device, enabled=(device == "cuda"))

for step in range(20):
    x = torch.randn(16, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (16,), device=device)
    with torch.autocast(device_type=device, dtype=torch.float16, enabled=(device == "cuda")):
        loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    if step % 5 == 0:
        print(step, loss.item())
