# heldout: expect=GD202 line=28 alt_lines=- static=yes
# Trainer.training_step clears the gradients between backward() and step().
import torch
import torch.nn as nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.loss_fn = nn.SmoothL1Loss()

    def training_step(self, batch):
        x, y = batch
        loss = self.loss_fn(self.model(x), y)
        loss.backward()
        self.optimizer.zero_grad()
        self.optimizer.step()
        return loss.item()

    def fit(self, batches, epochs=3):
        for epoch in range(epochs):
            losses = [self.training_step(b) for b in batches]
            print(epoch, sum(losses) / len(losses))


x = torch.randn(160, 4)
y = x[:, :1] ** 2 - x[:, 1:2]
batches = [(x[i:i + 32], y[i:i + 32]) for i in range(0, 160, 32)]
Trainer(Regressor()).fit(batches)
