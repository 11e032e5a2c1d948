"""A classifier that counts top-1 and top-3 accuracy from the step's own logits, after `optimizer.step()`."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
centers = torch.randn(10, 16) * 2
labels = torch.randint(0, 10, (1024,))
features = centers[labels] + torch.randn(1024, 16)
loader = DataLoader(TensorDataset(features, labels), batch_size=64, shuffle=True)

model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 10))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(4):
    correct1 = correct3 = seen = 0
    running_loss = 0.0
    for x, y in loader:
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * len(y)
        _, pred = out.topk(1, 1, True, True)
        correct1 += pred.squeeze(1).eq(y).sum().item()
        _, top3 = out.topk(3, 1)
        correct3 += top3.eq(y.view(-1, 1)).any(1).sum().item()
        _, argmax = out.max(1)
        seen += len(y)
    print(f"epoch {epoch}: loss {running_loss / seen:.3f} top1 {correct1 / seen:.2f} top3 {correct3 / seen:.2f}")
