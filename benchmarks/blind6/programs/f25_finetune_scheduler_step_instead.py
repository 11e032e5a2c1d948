# Fine-tuning a pretrained-like regression head with warm-up; the trainer steps
# the scheduler where the optimizer step should be.
import torch
import torch.nn as nn
import torch.nn.functional as F


def warmup(total_steps, warmup_steps):
    return lambda s: min(1.0, (s + 1) / warmup_steps) * max(0.0, (total_steps - s) / total_steps)


class FineTuner:
    def __init__(self, model, total_steps=50, warmup_steps=5):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, warmup(total_steps, warmup_steps))

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss = F.mse_loss(self.model(x), y)
        loss.backward()
        self.scheduler.step()
        return loss.item()

    def fit(self, loader):
        self.model.train()
        for step, (x, y) in enumerate(loader):
            loss = self.train_step(x, y)
            if step % 10 == 0:
                print(step, loss, self.scheduler.get_last_lr()[0])


model = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Dropout(0.1), nn.Linear(64, 1))
data = [(torch.randn(32, 16), torch.randn(32, 1)) for _ in range(50)]
FineTuner(model).fit(data)
