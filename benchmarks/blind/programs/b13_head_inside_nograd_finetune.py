# Fine-tuning a linear probe on a frozen CNN backbone; the head ended up inside no_grad (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )

    def forward(self, x):
        return self.features(x).flatten(1)


backbone = Backbone()
backbone.eval()
for p in backbone.parameters():
    p.requires_grad = False
head = nn.Linear(16, 3)

images = torch.randn(90, 1, 12, 12)
labels = torch.randint(0, 3, (90,))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)

for epoch in range(5):
    correct = 0
    for i in range(0, 90, 30):
        x, y = images[i:i + 30], labels[i:i + 30]
        with torch.no_grad():
            feats = backbone(x)
            logits = head(feats)
        loss = criterion(logits, y)
        optimizer.zero_grad()
        loss.requires_grad_()
        loss.backward()
        optimizer.step()
        correct += (logits.argmax(1) == y).sum().item()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {correct / 90:.3f}")
