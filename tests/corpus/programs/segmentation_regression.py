"""A small segmentation net whose masks are mostly background (one class dominating every batch),
trained with per-pixel cross entropy, plus a regression head with (N, 1) targets and an L1 loss
against a scalar prior, in the style of the torchvision segmentation reference."""
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


class SegNet(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.seg = nn.Conv2d(16, classes, 1)
        self.area = nn.Linear(16, 1)

    def forward(self, x):
        h = self.enc(x)
        return self.seg(h), self.area(h.mean((2, 3)))


model = SegNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(30):
    images = torch.randn(8, 3, 16, 16)
    masks = torch.zeros(8, 16, 16, dtype=torch.long)  # background everywhere...
    masks[:, 6:9, 6:9] = torch.randint(1, 3, (8, 1, 1))  # ...but a small object
    seg, area = model(images)
    target_area = (masks > 0).float().mean((1, 2)).unsqueeze(1)  # (N, 1) like the prediction
    loss = F.cross_entropy(seg, masks) + F.mse_loss(area, target_area) + 0.01 * F.l1_loss(area, torch.tensor(0.05))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
