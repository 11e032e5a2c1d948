"""Mixed-precision training loop for an MLP classifier with GradScaler."""
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 4)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler(device, enabled=device == "cuda")
loss_fn = nn.CrossEntropyLoss()

for step in range(4):
    x = torch.randn(16, 32, device=device)
    y = torch.randint(0, 4, (16,), device=device)
    with torch.autocast(device_type=device, dtype=torch.float16 if device == "cuda" else torch.bfloat16):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    optimizer.zero_grad(set_to_none=True)
    scaler.step(optimizer)
    scaler.update()
