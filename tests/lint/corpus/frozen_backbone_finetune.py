"""Fine-tuning a classifier head on a frozen backbone (params left out of the optimizer and frozen)."""
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())

    def forward(self, x):
        return self.features(x)


class Classifier(nn.Module):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


model = Classifier(Backbone(), num_classes=5)
model.backbone.requires_grad_(False)
model.backbone.eval()
optimizer = torch.optim.SGD(model.head.parameters(), lr=0.01, momentum=0.9)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 20], gamma=0.1)

for epoch in range(30):
    model.head.train()
    correct = total = 0
    for inputs, targets in train_loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        correct += (outputs.argmax(1) == targets).sum().item()
        total += targets.numel()
    scheduler.step()
    print(f"epoch {epoch} acc {correct / total:.3f} lr {scheduler.get_last_lr()[0]:.4f}")
