"""Segmentation validation in eval mode under no_grad, collecting predictions for mIoU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 3, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
train = [(torch.randn(2, 3, 16, 16), torch.randint(0, 3, (2, 16, 16))) for _ in range(3)]
val = [(torch.randn(2, 3, 16, 16), torch.randint(0, 3, (2, 16, 16))) for _ in range(2)]
for epoch in range(2):
    model.train()
    running = 0.0
    for img, mask in train:
        loss = F.cross_entropy(model(img), mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
    model.eval()
    all_logits = []
    with torch.no_grad():
        for img, mask in val:
            all_logits.append(model(img))
    preds = torch.cat(all_logits).argmax(1)
    print(epoch, running / len(train), preds.float().mean().item())
