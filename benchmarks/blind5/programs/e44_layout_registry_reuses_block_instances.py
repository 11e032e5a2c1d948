"""CNN assembled from a layout string, e.g. "CCPCCP": each letter names a layer from a registry."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class NetConfig:
    channels: int = 16
    layout: str = "CCPCCP"
    classes: int = 10


def conv_bn_relu(ch):
    return nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU())


class LayoutNet(nn.Module):
    def __init__(self, cfg: NetConfig):
        super().__init__()
        self.stem = nn.Conv2d(3, cfg.channels, 3, padding=1)
        registry = {"C": conv_bn_relu(cfg.channels), "P": nn.MaxPool2d(2)}
        self.body = nn.Sequential(*[registry[letter] for letter in cfg.layout])
        self.fc = nn.Linear(cfg.channels, cfg.classes)

    def forward(self, x):
        h = self.body(F.relu(self.stem(x)))
        return self.fc(h.mean((2, 3)))


cfg = NetConfig()
model = LayoutNet(cfg)
print("conv layers in layout:", cfg.layout.count("C"), "parameters:", sum(p.numel() for p in model.parameters()))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for it in range(8):
    x = torch.randn(16, 3, 16, 16)
    y = torch.randint(0, cfg.classes, (16,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(it, round(loss.item(), 4))
