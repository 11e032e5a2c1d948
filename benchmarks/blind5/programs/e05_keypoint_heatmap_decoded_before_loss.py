"""Keypoint regression from heatmaps: the loss is taken on decoded (x, y) coordinates."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
H = W = 16
K = 3


class HeatmapNet(nn.Module):
    def __init__(self, k=K):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
        )
        self.head = nn.Conv2d(16, k, 1)

    def forward(self, img):
        return self.head(self.body(img))

    def predict_keypoints(self, img):
        return decode_heatmaps(self(img))


def decode_heatmaps(heatmaps):
    b, k, h, w = heatmaps.shape
    flat = heatmaps.flatten(2)
    idx = flat.argmax(dim=-1)
    ys = (idx // w).float() / (h - 1)
    xs = (idx % w).float() / (w - 1)
    return torch.stack([xs, ys], dim=-1)


def synthetic_batch(bs=8):
    coords = torch.rand(bs, K, 2)
    img = torch.zeros(bs, 1, H, W)
    for b in range(bs):
        for k in range(K):
            x, y = (coords[b, k] * (W - 1)).round().long()
            img[b, 0, y, x] = 1.0
    img = F.avg_pool2d(img, 3, stride=1, padding=1)
    return img, coords


model = HeatmapNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(20):
    img, target = synthetic_batch()
    pred = model.predict_keypoints(img)
    loss = F.smooth_l1_loss(pred, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if it % 5 == 0:
        print(it, loss.item())
