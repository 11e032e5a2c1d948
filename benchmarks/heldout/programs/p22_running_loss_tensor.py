# heldout: expect=GD207 line=30 alt_lines=- static=yes
# The epoch loss is accumulated as a tensor, keeping every batch's graph alive.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Points(Dataset):
    def __init__(self, n=400):
        self.x = torch.randn(n, 2)
        self.y = ((self.x ** 2).sum(1) < 1).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    running_loss = 0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running_loss += loss
    return running_loss / len(loader)


model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 2))
loader = DataLoader(Points(), batch_size=20, shuffle=True)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(5):
    avg = train_epoch(model, loader, optimizer, nn.CrossEntropyLoss())
    print(f"epoch {epoch} loss {avg:.4f}")
