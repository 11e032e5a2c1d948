# heldout: expect=GD101 line=23 alt_lines=25 static=yes
# Trainer class computing a per-sample loss, collecting floats in a list, summing and re-wrapping.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.criterion = nn.MSELoss()
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)

    def train_epoch(self, loader):
        self.model.train()
        epoch_loss = 0.0
        for xb, yb in loader:
            losses = []
            for i in range(xb.shape[0]):
                pred = self.model(xb[i:i + 1])
                losses.append(self.criterion(pred, yb[i:i + 1]).item())
            total = sum(losses) / len(losses)
            loss = torch.tensor(total, requires_grad=True)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            epoch_loss += total
        return epoch_loss / len(loader)


X = torch.randn(128, 8)
Y = X @ torch.randn(8, 1) + 0.1 * torch.randn(128, 1)
loader = DataLoader(TensorDataset(X, Y), batch_size=16, shuffle=True)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
trainer = Trainer(model)
for epoch in range(3):
    print(epoch, trainer.train_epoch(loader))
