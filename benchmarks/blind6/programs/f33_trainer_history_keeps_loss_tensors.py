# Trainer that records a per-step loss history for plotting; it stores the
# loss tensors themselves.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Callback:
    def on_step_end(self, trainer, loss):
        pass


class LossHistory(Callback):
    def __init__(self):
        self.losses = []

    def on_step_end(self, trainer, loss):
        self.losses.append(loss)


class Trainer:
    def __init__(self, model, callbacks=()):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.callbacks = list(callbacks)

    def fit(self, batches, epochs=2):
        for _ in range(epochs):
            for x, y in batches:
                loss = F.cross_entropy(self.model(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                for cb in self.callbacks:
                    cb.on_step_end(self, loss)


history = LossHistory()
net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
data = [(torch.randn(32, 20), torch.randint(0, 3, (32,))) for _ in range(25)]
Trainer(net, [history]).fit(data)
print(len(history.losses), history.losses[-1])
