# ResNet-ish classifier with StepLR(step_size=10) meant in epochs, stepped every batch (2024).
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        return F.relu(x + self.conv2(F.relu(self.conv1(x))))


model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), ResBlock(8), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))
x = torch.randn(200, 3, 8, 8)
y = torch.randint(0, 5, (200,))
loader = DataLoader(TensorDataset(x, y), batch_size=20, shuffle=True)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)
criterion = nn.CrossEntropyLoss()


def train_one_epoch(epoch):
    model.train()
    for batch_idx, (inputs, targets) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        scheduler.step()
    print(f"epoch {epoch} lr {optimizer.param_groups[0]['lr']:.2e} loss {loss.item():.4f}")


for epoch in range(4):
    train_one_epoch(epoch)
