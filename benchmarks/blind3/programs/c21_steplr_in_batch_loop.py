"""Image classification with a StepLR schedule decaying every 30 epochs."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(64, 3, 8, 8), torch.randint(0, 10, (64,)))
loader = DataLoader(dataset, batch_size=16, shuffle=True)
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
lr_sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)


def train_one_epoch(epoch):
    model.train()
    for images, targets in loader:
        loss = F.cross_entropy(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        lr_sched.step()


for epoch in range(2):
    train_one_epoch(epoch)
