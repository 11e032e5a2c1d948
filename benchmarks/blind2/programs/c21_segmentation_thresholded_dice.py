# Binary segmentation with a soft Dice loss; the prediction is thresholded before the Dice,
# as in the evaluation code it was copied from.
import torch
import torch.nn as nn

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
    pred_mask = (torch.sigmoid(logits) > 0.5).float()
    loss = dice_loss(pred_mask, masks)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
