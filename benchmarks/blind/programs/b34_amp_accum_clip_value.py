# Mixed precision + gradient accumulation in a Trainer; clip_grad_value_ on scaled gradients (2024).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"


class Trainer:
    def __init__(self, model, accum_steps=2, clip=0.5):
        self.model = model.to(device)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        self.scaler = torch.amp.GradScaler(device, enabled=True)
        self.accum_steps = accum_steps
        self.clip = clip

    def train_epoch(self, batches):
        self.model.train()
        for i, (x, y) in enumerate(batches):
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                logits = self.model(x.to(device))
                loss = F.cross_entropy(logits, y.to(device)) / self.accum_steps
            self.scaler.scale(loss).backward()
            if (i + 1) % self.accum_steps == 0:
                nn.utils.clip_grad_value_(self.model.parameters(), self.clip)
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
        return loss.item() * self.accum_steps


model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3))
X = torch.randn(96, 12)
Y = X[:, :3].argmax(1)
batches = [(X[i:i + 12], Y[i:i + 12]) for i in range(0, 96, 12)]
trainer = Trainer(model)
for epoch in range(5):
    print(f"epoch {epoch} loss {trainer.train_epoch(batches):.4f}")
