"""Imbalanced multi-class classifier trained with a focal loss configured from a dataclass."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class LossConfig:
    gamma: float = 2.0
    alpha: float = 0.25
    reduction: str = "none"


class FocalLoss(nn.Module):
    def __init__(self, cfg: LossConfig):
        super().__init__()
        self.gamma = cfg.gamma
        self.alpha = cfg.alpha
        self.reduction = cfg.reduction

    def forward(self, logits, target):
        ce = F.cross_entropy(logits, target, reduction="none")
        pt = torch.exp(-ce)
        focal = self.alpha * (1 - pt) ** self.gamma * ce
        if self.reduction == "mean":
            return focal.mean()
        if self.reduction == "sum":
            return focal.sum()
        return focal


class Classifier(nn.Module):
    def __init__(self, din=24, classes=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(din, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, classes))
        self.criterion = FocalLoss(LossConfig())

    def forward(self, x):
        return self.net(x)

    def loss(self, x, y):
        return self.criterion(self(x), y)


def imbalanced_data(n=600, classes=6):
    probs = torch.tensor([0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    y = torch.multinomial(probs, n, replacement=True)
    x = torch.randn(n, 24) + F.one_hot(y, 24).float() * 2
    return x, y


model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x, y = imbalanced_data()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=50, shuffle=True)
for epoch in range(2):
    for xb, yb in loader:
        opt.zero_grad()
        loss = model.loss(xb, yb)
        loss.backward()
        opt.step()
    print("epoch", epoch)
