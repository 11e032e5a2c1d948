"""Linear probe on a frozen feature extractor: features under no_grad, only the head is optimised."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(8))

    def forward(self, x):
        return self.conv(x).flatten(1)


class LinearProbe(nn.Module):
    def __init__(self, backbone, classes=3):
        super().__init__()
        self.backbone = backbone.requires_grad_(False).eval()
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        with torch.no_grad():
            feats = self.backbone(x)
        return self.head(feats)

    def train(self, mode=True):
        super().train(mode)
        self.backbone.eval()
        return self


model = LinearProbe(Backbone())
opt = torch.optim.SGD(model.head.parameters(), lr=0.1, momentum=0.9)
signals = torch.randn(300, 1, 32)
labels = (signals.mean(dim=(1, 2)) * 10).long().clamp(-1, 1) + 1
for epoch in range(3):
    model.train()
    for i in range(0, 300, 30):
        loss = F.cross_entropy(model(signals[i:i + 30]), labels[i:i + 30])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 4))
