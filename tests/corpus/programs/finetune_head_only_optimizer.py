"""Fine-tuning as in EfficientNet-PyTorch's examples: a small pretrained-style backbone (conv, batch
norm) with a new classifier `_fc`; the optimizer is built from `model._fc.parameters()` on purpose,
so only the head trains while the backbone's batch-norm statistics keep adapting."""
import torch
from torch import nn, optim

torch.manual_seed(0)


class TinyEfficientNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self._conv_stem = nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)
        self._bn0 = nn.BatchNorm2d(8)
        self._blocks = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.SiLU())
        self._avg_pooling = nn.AdaptiveAvgPool2d(1)
        self._fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self._blocks(torch.nn.functional.silu(self._bn0(self._conv_stem(x))))
        return self._fc(self._avg_pooling(x).flatten(1))


model = TinyEfficientNet()
model._fc = nn.Linear(16, 4)  # a new head for 4 classes, before the optimizer is built
optimizer = optim.Adam(model._fc.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
images = torch.randn(64, 3, 16, 16)
labels = (images[:, 0].mean(dim=(1, 2)) > 0).long() + 2 * (images[:, 1].mean(dim=(1, 2)) > 0).long()

for epoch in range(3):
    for i in range(0, 64, 16):
        optimizer.zero_grad()
        loss = criterion(model(images[i:i + 16]), labels[i:i + 16])
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
