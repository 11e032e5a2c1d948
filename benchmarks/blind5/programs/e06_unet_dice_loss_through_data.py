"""Binary segmentation with a soft Dice loss (class imbalance: foreground is ~10% of pixels)."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class TinyUNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.down = nn.Sequential(nn.Conv2d(1, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.mid = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.ReLU())
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.out = nn.Conv2d(2 * c, 1, 1)
        self.skip = nn.Conv2d(1, c, 3, padding=1)

    def forward(self, x):
        h = self.up(self.mid(self.down(x)))
        return self.out(torch.cat([h, self.skip(x)], dim=1))


class SoftDiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    def forward(self, logits, target):
        probs = torch.sigmoid(logits).data
        dims = (1, 2, 3)
        inter = (probs * target).sum(dims)
        union = probs.sum(dims) + target.sum(dims)
        dice = (2 * inter + self.smooth) / (union + self.smooth)
        return 1 - dice.mean()


def make_masks(bs, size=32):
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    cx, cy = torch.randint(8, 24, (2, bs, 1, 1))
    mask = (((xx - cx) ** 2 + (yy - cy) ** 2) < 25).float().unsqueeze(1)
    img = mask + 0.3 * torch.randn_like(mask)
    return img, mask


class SegTrainer:
    def __init__(self, model):
        self.model = model
        self.criterion = SoftDiceLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def training_step(self, img, mask):
        loss = self.criterion(self.model(img), mask)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = SegTrainer(TinyUNet())
for it in range(15):
    img, mask = make_masks(8)
    print(it, trainer.training_step(img, mask))
