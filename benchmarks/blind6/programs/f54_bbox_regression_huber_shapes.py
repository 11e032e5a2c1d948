# Object-size regression for a detector's auxiliary head: predicted log-area
# (N, 1) against target log-areas (N,) with a Huber loss.
import torch
import torch.nn as nn
import torch.nn.functional as F


class SizeHead(nn.Module):
    def __init__(self, c=32):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(c, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, feats):
        return self.fc(self.pool(feats))


def box_log_area(boxes):
    wh = (boxes[:, 2:] - boxes[:, :2]).clamp(min=1.0)
    return torch.log(wh[:, 0] * wh[:, 1])


backbone = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU())
head = SizeHead()
params = list(backbone.parameters()) + list(head.parameters())
optimizer = torch.optim.SGD(params, lr=0.01, momentum=0.9)

for it in range(15):
    crops = torch.randn(24, 3, 32, 32)
    xy = torch.rand(24, 2) * 100
    boxes = torch.cat([xy, xy + torch.rand(24, 2) * 50 + 5], dim=1)
    pred = head(backbone(crops))
    loss = F.huber_loss(pred, box_log_area(boxes), delta=1.0)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if it % 5 == 0:
        print(it, loss.item())
