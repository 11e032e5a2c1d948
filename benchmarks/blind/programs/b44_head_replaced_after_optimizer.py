# Transfer learning: pretrained-style backbone, new head for 3 classes attached after the optimizer (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten())
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.fc(self.features(x))


model = Classifier()
for p in model.features.parameters():
    p.requires_grad = False
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
model.fc = nn.Linear(32, 3)

images = torch.randn(90, 3, 8, 8)
labels = torch.randint(0, 3, (90,))
criterion = nn.CrossEntropyLoss()

for epoch in range(5):
    model.train()
    running = 0.0
    for i in range(0, 90, 15):
        optimizer.zero_grad()
        loss = criterion(model(images[i:i + 15]), labels[i:i + 15])
        loss.backward()
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch} loss {running / 6:.4f}")
