# Segmentation trainer with a per-epoch validation under inference_mode. The
# train loop calls model.train(); validation never calls model.eval().
import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


class TinySegNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.down = nn.Sequential(conv_bn(3, 16), nn.MaxPool2d(2), conv_bn(16, 32))
        self.up = nn.Sequential(nn.Upsample(scale_factor=2), conv_bn(32, 16), nn.Conv2d(16, n_classes, 1))

    def forward(self, x):
        return self.up(self.down(x))


class SegTrainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def train_epoch(self, batches):
        self.model.train()
        for img, mask in batches:
            loss = F.cross_entropy(self.model(img), mask)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def validate(self, batches):
        inter = union = 0
        with torch.inference_mode():
            for img, mask in batches:
                pred = self.model(img).argmax(1)
                inter += ((pred == 1) & (mask == 1)).sum().item()
                union += ((pred == 1) | (mask == 1)).sum().item()
        return inter / max(union, 1)


def fake_batches(n):
    return [(torch.randn(4, 3, 32, 32), torch.randint(0, 3, (4, 32, 32))) for _ in range(n)]


trainer = SegTrainer(TinySegNet())
train_data, val_data = fake_batches(6), fake_batches(2)
for epoch in range(2):
    trainer.train_epoch(train_data)
    print(epoch, "val IoU", trainer.validate(val_data))
