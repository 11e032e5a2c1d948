# Correct: linear probe; only the frozen backbone runs under no_grad, the head outside it.
import torch
import torch.nn as nn

torch.manual_seed(0)

backbone = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
backbone.eval()
for p in backbone.parameters():
    p.requires_grad = False
head = nn.Linear(8, 3)

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
        loss.backward()
        optimizer.step()
        correct += (logits.argmax(1) == y).sum().item()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {correct / 90:.3f}")
