"""Tabular classifier with an epoch meter that keeps what it is given and averages at the end of the
epoch: it is handed the loss tensor itself, so every batch's graph stays alive until the epoch ends."""
import torch
import torch.nn as nn


class EpochMeter:
    def __init__(self):
        self.values, self.counts = [], []

    def update(self, values, n=1):
        self.values.extend(values)
        self.counts.append(n)

    def average(self):
        total = sum(float(v) * n for v, n in zip(self.values, self.counts))
        return total / max(sum(self.counts), 1)


torch.manual_seed(0)
features, classes = torch.randn(768, 24), torch.randint(0, 4, (768,))
model = nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()
for epoch in range(4):
    meter = EpochMeter()
    for start in range(0, 768, 48):
        x, y = features[start:start + 48], classes[start:start + 48]
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.update([loss], n=x.size(0))
    print(f"epoch {epoch}: train loss {meter.average():.4f}")
