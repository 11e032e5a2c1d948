# AMP with clipping done the documented way: scaler.unscale_ before
# clip_grad_norm_, then scaler.step and update.
import torch
import torch.nn as nn
import torch.nn.functional as F

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 3)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler(device, enabled=(device == "cuda"))


def optimizer_step(max_norm=1.0):
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    return norm


for step in range(15):
    x = torch.randn(32, 16, device=device)
    y = torch.randint(0, 3, (32,), device=device)
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device_type=device, dtype=torch.float16, enabled=(device == "cuda")):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    norm = optimizer_step()
    if step % 5 == 0:
        print(step, loss.item(), float(norm))
