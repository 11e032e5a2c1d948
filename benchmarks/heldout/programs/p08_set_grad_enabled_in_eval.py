# heldout: expect=GD110 line=17 alt_lines=29 static=yes
# evaluate() turns grad mode off globally and never turns it back on; the second epoch fails.
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_loader(n=160, bs=32):
    x = torch.randn(n, 6)
    y = (x.sum(1) > 0).long()
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


def evaluate(model, loader):
    model.eval()
    torch.set_grad_enabled(False)
    correct = total = 0
    for xb, yb in loader:
        correct += (model(xb).argmax(1) == yb).sum().item()
        total += len(yb)
    model.train()
    return correct / total


def train_one_epoch(model, loader, optimizer, criterion):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    return loss.item()


train_loader, val_loader = make_loader(), make_loader(64)
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()
for epoch in range(3):
    loss = train_one_epoch(model, train_loader, optimizer, criterion)
    acc = evaluate(model, val_loader)
    print(f"epoch {epoch}: loss {loss:.3f} val acc {acc:.2f}")
