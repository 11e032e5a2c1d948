"""Mixed-precision classifier training: autocast, GradScaler, unscale_ before clipping."""
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Sequential(nn.Linear(512, 512), nn.GELU(), nn.LayerNorm(512), nn.Linear(512, 100)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=50)
scaler = torch.amp.GradScaler(device)
criterion = nn.CrossEntropyLoss()


def train_one_epoch(loader):
    model.train()
    seen, loss_sum = 0, 0.0
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device, dtype=torch.float16):
            logits = model(inputs)
            loss = criterion(logits, targets)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.step(optimizer)
        scaler.update()
        seen += inputs.size(0)
        loss_sum += loss.detach().item() * inputs.size(0)
    return loss_sum / seen, grad_norm


for epoch in range(50):
    train_loss, last_norm = train_one_epoch(train_loader)
    scheduler.step()
    print(f"epoch {epoch} loss {train_loss:.4f} grad-norm {last_norm:.2f}")
