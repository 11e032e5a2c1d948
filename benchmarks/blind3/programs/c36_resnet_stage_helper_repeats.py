"""A ResNet-like classifier whose stages are built by a helper function."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(ch)

    def forward(self, x):
        return F.relu(x + self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))))


def make_stage(ch, blocks):
    block = BasicBlock(ch)
    return nn.Sequential(*(block,) * blocks)


class TinyResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.stage1 = make_stage(8, 2)
        self.fc = nn.Linear(8, classes)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(self.stage1(self.stem(x)), 1).flatten(1))


model = TinyResNet()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for it in range(2):
    x, y = torch.randn(4, 3, 8, 8), torch.randint(0, 10, (4,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
