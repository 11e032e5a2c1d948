"""Multi-label image tagging (synthetic 1x16x16 images, 6 tags) with a positive-class weight."""
import torch
import torch.nn as nn

torch.manual_seed(0)
TAGS = 6


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.fc = nn.Linear(8 * 16, TAGS)

    def forward(self, img):
        return self.fc(self.body(img))

    def predict_proba(self, img):
        return torch.sigmoid(self(img))


def tags_for(img):
    q = img.unfold(2, 8, 8).unfold(3, 8, 8).mean((-1, -2)).flatten(1)
    return torch.cat([(q > 0.05).float(), (img.mean((1, 2, 3)) > 0).float().unsqueeze(1),
                      (img.std((1, 2, 3)) > 1).float().unsqueeze(1)], 1)


def train(model, epochs=3):
    pos_weight = torch.full((TAGS,), 2.0)
    loss_fn = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(epochs):
        for _ in range(8):
            img = torch.randn(32, 1, 16, 16)
            target = tags_for(img)
            probs = model.predict_proba(img)
            loss = loss_fn(probs, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
        f1_like = ((probs > 0.5).float() == target).float().mean().item()
        print(epoch, round(loss.item(), 4), round(f1_like, 3))


train(Tagger())
