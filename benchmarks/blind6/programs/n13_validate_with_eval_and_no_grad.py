# Trainer that validates each epoch with model.eval() and no_grad, collects
# detached predictions, and switches back to train mode.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.val_losses = []

    def train_epoch(self, batches):
        self.model.train()
        for x, y in batches:
            loss = F.cross_entropy(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    @torch.no_grad()
    def validate(self, batches):
        self.model.eval()
        preds, total = [], 0.0
        for x, y in batches:
            logits = self.model(x)
            total += F.cross_entropy(logits, y)
            preds.append(logits.argmax(1))
        self.val_losses.append(total / len(batches))
        return torch.cat(preds)


model = nn.Sequential(nn.Linear(10, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 3))
trainer = Trainer(model)
data = [(torch.randn(16, 10), torch.randint(0, 3, (16,))) for _ in range(8)]
for epoch in range(3):
    trainer.train_epoch(data[:6])
    print(epoch, trainer.validate(data[6:]).shape, trainer.val_losses[-1].item())
