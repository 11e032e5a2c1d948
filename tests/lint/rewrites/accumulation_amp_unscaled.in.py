import torch
import torch.nn.functional as F
from torch import nn


class Config:
    grad_accum = 8
    lr = 0.05


def train(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    for step, (x, y) in enumerate(loader):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            pred = model(x)
        loss = F.mse_loss(pred.float(), y)
        scaler.scale(loss).backward()  # micro-batch
        if (step + 1) % cfg.grad_accum == 0 or step + 1 == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randn(8, 16), torch.randn(8, 1)) for _ in range(24)]
    print(train(nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1)), data, Config()))
