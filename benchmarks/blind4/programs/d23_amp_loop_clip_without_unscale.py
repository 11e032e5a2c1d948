"""Mixed-precision fine-tuning loop (autocast + GradScaler) for a ViT-like patch classifier."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Args:
    epochs: int = 2
    lr: float = 1e-3
    max_grad_norm: float = 1.0
    fp16: bool = True


class PatchClassifier(nn.Module):
    def __init__(self, patch=4, d=32, n_cls=5):
        super().__init__()
        self.patchify = nn.Conv2d(3, d, patch, stride=patch)
        self.block = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.1, batch_first=True)
        self.head = nn.Linear(d, n_cls)

    def forward(self, x):
        tokens = self.patchify(x).flatten(2).transpose(1, 2)
        return self.head(self.block(tokens).mean(1))


def train(args):
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = PatchClassifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler(device, enabled=args.fp16)
    amp_dtype = torch.float16 if device == "cuda" else torch.bfloat16
    y = torch.randint(0, 5, (256,))
    x = torch.randn(256, 3, 16, 16) + y.view(-1, 1, 1, 1) * 0.3
    for epoch in range(args.epochs):
        model.train()
        for i in range(0, 256, 32):
            xb, yb = x[i:i + 32].to(device), y[i:i + 32].to(device)
            with torch.autocast(device_type=device, dtype=amp_dtype, enabled=args.fp16):
                loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            if args.max_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
        print(epoch, loss.item())


if __name__ == "__main__":
    train(Args())
