"""Tabular classifier with BatchNorm; validation accuracy after each epoch."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TabularNet(nn.Module):
    def __init__(self, din=12, classes=3):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(din, 64), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Linear(64, classes),
        )

    def forward(self, x):
        return self.net(x)


@torch.no_grad()
def evaluate(model, loader):
    correct = total = 0
    for xb, yb in loader:
        pred = model(xb).argmax(1)
        correct += (pred == yb).sum().item()
        total += len(yb)
    return correct / total


def train_epoch(model, loader, optimizer):
    model.train()
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
    return loss.item()


def loaders(n=900):
    x = torch.randn(n, 12) * torch.linspace(0.5, 3, 12)
    y = (x[:, 0] > 0).long() + (x[:, 5] > 1).long()
    tr = torch.utils.data.TensorDataset(x[:700], y[:700])
    va = torch.utils.data.TensorDataset(x[700:], y[700:])
    return (torch.utils.data.DataLoader(tr, batch_size=64, shuffle=True),
            torch.utils.data.DataLoader(va, batch_size=16))


train_loader, val_loader = loaders()
model = TabularNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(4):
    loss = train_epoch(model, train_loader, optimizer)
    print(f"epoch {epoch} loss {loss:.4f} val acc {evaluate(model, val_loader):.3f}")
