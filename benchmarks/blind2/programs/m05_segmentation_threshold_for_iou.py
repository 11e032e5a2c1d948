# Binary segmentation: a soft Dice on probabilities for the loss; thresholding only for IoU.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def dice_loss(pred, target, eps=1.0):
    inter = (pred * target).sum(dim=(1, 2, 3))
    union = pred.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1))
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

for step in range(20):
    images = torch.randn(4, 1, 16, 16)
    masks = (images > 0.5).float()
    logits = net(images)
    probs = torch.sigmoid(logits)
    pred_mask = (probs > 0.5).float()
    iou = ((pred_mask * masks).sum() / ((pred_mask + masks).clamp(max=1).sum() + 1e-6)).item()
    loss = dice_loss(probs, masks) + F.binary_cross_entropy_with_logits(logits, masks)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item(), iou)
