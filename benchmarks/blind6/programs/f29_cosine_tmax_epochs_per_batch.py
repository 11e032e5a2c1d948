# Contrastive pre-training of a small encoder (two noisy views); cosine
# annealing sized in epochs, stepped after every batch.
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Args:
    epochs: int = 4
    batch_size: int = 64
    lr: float = 0.3
    temperature: float = 0.2


def info_nce(z1, z2, t):
    z1, z2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
    logits = z1 @ z2.t() / t
    return F.cross_entropy(logits, torch.arange(z1.size(0)))


def main(args=Args()):
    encoder = nn.Sequential(nn.Linear(32, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Linear(128, 64))
    optimizer = torch.optim.SGD(encoder.parameters(), lr=args.lr, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    data = torch.randn(1024, 32)
    for epoch in range(args.epochs):
        for i in range(0, len(data), args.batch_size):
            x = data[i:i + args.batch_size]
            v1, v2 = x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x)
            loss = info_nce(encoder(v1), encoder(v2), args.temperature)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        print(epoch, loss.item(), scheduler.get_last_lr()[0])


if __name__ == "__main__":
    main()
