"""Full fine-tuning with discriminative learning rates (small lr for the backbone, larger for the head)."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class TrainArgs:
    backbone_lr: float = 1e-4
    head_lr: float = 1e-2
    epochs: int = 3
    batch_size: int = 32


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(8, 16, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(4),
        )

    def forward(self, x):
        return self.conv(x).flatten(1)


class FineTuneModel(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        with torch.no_grad():
            feats = self.backbone(x)
        return self.head(feats)


def param_groups(model, args):
    return [
        {"params": model.backbone.parameters(), "lr": args.backbone_lr},
        {"params": model.head.parameters(), "lr": args.head_lr},
    ]


def train(args):
    model = FineTuneModel()
    opt = torch.optim.SGD(param_groups(model, args), momentum=0.9)
    signals = torch.randn(300, 1, 32)
    labels = (signals.mean(dim=(1, 2)) * 10).long().clamp(-1, 1) + 1
    for epoch in range(args.epochs):
        for i in range(0, 300, args.batch_size):
            loss = F.cross_entropy(model(signals[i:i + args.batch_size]), labels[i:i + args.batch_size])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item())


train(TrainArgs())
