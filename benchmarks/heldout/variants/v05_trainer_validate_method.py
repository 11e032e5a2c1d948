# heldout: expect=GD211 line=29 alt_lines=- static=yes
# A Trainer whose validate() method runs under no_grad without self.model.eval().
import torch
import torch.nn as nn

torch.manual_seed(0)


def build_model():
    return nn.Sequential(nn.Linear(12, 48), nn.BatchNorm1d(48), nn.ReLU(), nn.Dropout(0.4), nn.Linear(48, 2))


class Trainer:
    def __init__(self):
        self.model = build_model()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.criterion = nn.CrossEntropyLoss()

    def train_epoch(self, x, y):
        self.model.train()
        for i in range(0, len(x), 32):
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x[i:i + 32]), y[i:i + 32])
            loss.backward()
            self.optimizer.step()

    @torch.no_grad()
    def validate(self, x, y):
        logits = self.model(x)
        return (logits.argmax(1) == y).float().mean().item()


x, y = torch.randn(256, 12), torch.randint(0, 2, (256,))
xv, yv = torch.randn(64, 12), torch.randint(0, 2, (64,))
trainer = Trainer()
for epoch in range(3):
    trainer.train_epoch(x, y)
    print(epoch, trainer.validate(xv, yv))
