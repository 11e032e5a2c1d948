# heldout: expect=none
# Correct custom Dataset + DataLoader + trainer class with log_softmax + NLLLoss, StepLR per epoch, metrics after the step.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Spirals(Dataset):
    def __init__(self, n=300):
        t = torch.rand(n) * 6
        self.y = torch.randint(0, 3, (n,))
        angle = t + self.y.float() * 2.1
        self.x = torch.stack([t * torch.cos(angle), t * torch.sin(angle)], 1) / 6

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))

    def forward(self, x):
        return F.log_softmax(self.body(x), dim=1)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=2, gamma=0.5)
        self.criterion = nn.NLLLoss()

    def train_epoch(self, loader):
        self.model.train()
        correct = 0
        for xb, yb in loader:
            self.optimizer.zero_grad()
            out = self.model(xb)
            loss = self.criterion(out, yb)
            loss.backward()
            self.optimizer.step()
            _, pred = out.max(1)
            correct += (pred == yb).sum().item()
        self.scheduler.step()
        return correct / len(loader.dataset)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        total = sum(self.criterion(self.model(xb), yb).item() for xb, yb in loader)
        return total / len(loader)


train_loader = DataLoader(Spirals(), batch_size=30, shuffle=True)
val_loader = DataLoader(Spirals(90), batch_size=30)
trainer = Trainer(Net())
for epoch in range(4):
    print(epoch, trainer.train_epoch(train_loader), trainer.evaluate(val_loader))
