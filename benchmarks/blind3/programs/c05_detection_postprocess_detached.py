"""Detection-style multi-task head: class scores and box offsets, losses summed from a dict."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Detector(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4))
        self.cls_head = nn.Linear(8 * 16, num_classes)
        self.box_head = nn.Linear(8 * 16, 4)

    def forward(self, images):
        f = self.backbone(images).flatten(1)
        return self.cls_head(f), self.box_head(f)


def postprocess(raw):
    cls_logits, boxes = raw
    return {"cls_logits": cls_logits.detach(), "boxes": boxes.detach().sigmoid()}


def compute_losses(preds, targets):
    return {
        "loss_cls": F.cross_entropy(preds["cls_logits"], targets["labels"]),
        "loss_box": F.smooth_l1_loss(preds["boxes"], targets["boxes"]),
    }


model = Detector()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for it in range(3):
    images = torch.randn(4, 3, 16, 16)
    targets = {"labels": torch.randint(0, 4, (4,)), "boxes": torch.rand(4, 4)}
    preds = postprocess(model(images))
    loss_dict = compute_losses(preds, targets)
    losses = sum(loss for loss in loss_dict.values())
    optimizer.zero_grad()
    losses.backward()
    optimizer.step()
