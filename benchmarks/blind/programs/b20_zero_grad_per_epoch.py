# CNN on synthetic 10x10 "digits"; zero_grad moved to the epoch loop while refactoring (2024).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

images = torch.randn(160, 1, 10, 10)
labels = (images.mean(dim=(1, 2, 3)) > 0).long() + 2 * (images[:, 0, :5].mean(dim=(1, 2)) > 0).long()
loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)


class SmallCNN(nn.Module):
    def __init__(self, n_classes=4):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


model = SmallCNN()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(5):
    model.train()
    optimizer.zero_grad()
    running, correct = 0.0, 0
    for xb, yb in loader:
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        running += loss.item() * xb.size(0)
        correct += (logits.argmax(1) == yb).sum().item()
    print(f"epoch {epoch} loss {running / len(images):.4f} acc {correct / len(images):.3f}")
