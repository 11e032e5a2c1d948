# heldout: expect=GD205 line=19 alt_lines=28 static=yes
# StepLR meant per epoch (step_size=10 epochs) is stepped inside the batch loop.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def train(model, loader, optimizer, scheduler, epochs=3):
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
        print(epoch, loss.item(), scheduler.get_last_lr())


X = torch.randn(512, 8)
Y = torch.randint(0, 4, (512,))
loader = DataLoader(TensorDataset(X, Y), batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)
train(model, loader, optimizer, scheduler)
