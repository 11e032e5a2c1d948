"""AMP loop done right: unscale_ before clipping, per-iteration schedulers sized in iterations."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def main(epochs=2, max_lr=3e-3, schedule="cosine"):
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    y = torch.randint(0, 4, (384,))
    x = torch.randn(384, 20) + F.one_hot(y, 4).float().repeat(1, 5)
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 4)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=max_lr)
    if schedule == "onecycle":
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=max_lr, epochs=epochs,
                                                        steps_per_epoch=len(loader))
    else:
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
    scaler = torch.amp.GradScaler(device, enabled=device == "cuda")
    for epoch in range(epochs):
        model.train()
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
        print(epoch, loss.item(), scheduler.get_last_lr()[0])


if __name__ == "__main__":
    main()
    main(schedule="onecycle")
