"""Gradient accumulation with AMP: loss scaled by the accumulation factor, unscale_ before clipping."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@dataclass
class Args:
    accum_steps: int = 4
    max_grad_norm: float = 1.0
    lr: float = 1e-3
    micro_batch: int = 8


def build_model():
    return nn.Sequential(nn.Linear(20, 64), nn.GELU(), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 4)).to(DEVICE)


def train(args, x, y):
    model = build_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler(DEVICE)
    amp_dtype = torch.float16 if DEVICE == "cuda" else torch.bfloat16
    optimizer.zero_grad(set_to_none=True)
    updates = 0
    for i, start in enumerate(range(0, len(x), args.micro_batch)):
        xb = x[start:start + args.micro_batch].to(DEVICE)
        yb = y[start:start + args.micro_batch].to(DEVICE)
        with torch.autocast(device_type=DEVICE, dtype=amp_dtype):
            loss = F.cross_entropy(model(xb), yb) / args.accum_steps
        scaler.scale(loss).backward()
        if (i + 1) % args.accum_steps == 0:
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
            updates += 1
            if updates % 4 == 0:
                print(updates, round(loss.item() * args.accum_steps, 4))
    return model


x = torch.randn(512, 20)
y = x[:, :4].argmax(1)
train(Args(), x, y)
