# heldout: expect=GD201 line=17 alt_lines=16 static=yes
# train(model, loader, optimizer, scheduler) never clears the gradients.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def train(model, loader, optimizer, scheduler, criterion):
    model.train()
    running = 0.0
    for xb, yb in loader:
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    scheduler.step()
    return running / len(loader)


X = torch.randn(320, 12)
Y = (X[:, :3].sum(1) > 0).long()
loader = DataLoader(TensorDataset(X, Y), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
for epoch in range(4):
    print(epoch, train(model, loader, optimizer, scheduler, nn.CrossEntropyLoss()))
