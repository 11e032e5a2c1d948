# Landmark regression: the head predicts normalised (x, y); the trainer turns
# them into integer pixel positions before comparing with the labels.
import torch
import torch.nn as nn
import torch.nn.functional as F

IMG = 64


class LandmarkNet(nn.Module):
    def __init__(self, n_points=5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.head = nn.Linear(16 * 16, n_points * 2)
        self.n_points = n_points

    def forward(self, x):
        return torch.sigmoid(self.head(self.features(x))).view(-1, self.n_points, 2)


class LandmarkTrainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)

    def to_pixels(self, coords):
        return (coords * (IMG - 1)).long().float()

    def train_step(self, images, points_px):
        pred_px = self.to_pixels(self.model(images))
        loss = F.smooth_l1_loss(pred_px, points_px)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


trainer = LandmarkTrainer(LandmarkNet())
for it in range(10):
    imgs = torch.randn(16, 3, IMG, IMG)
    pts = torch.randint(0, IMG, (16, 5, 2)).float()
    print(it, trainer.train_step(imgs, pts))
