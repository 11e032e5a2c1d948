"""Multi-label tagger with a small step-state helper that tracks gradient norms."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
TAGS = 5


class Tagger(nn.Module):
    def __init__(self, din=30):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(din, 64), nn.ReLU(), nn.Linear(64, TAGS))

    def forward(self, x):
        return self.net(x)


class StepState:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.grad_norms = []

    def record(self):
        total = torch.sqrt(sum(p.grad.pow(2).sum() for p in self.model.parameters() if p.grad is not None))
        self.grad_norms.append(total.item())

    def reset(self):
        self.optimizer.zero_grad()
        if len(self.grad_norms) > 100:
            self.grad_norms.clear()


def train_epoch(model, optimizer, state, x, y, bs=32):
    model.train()
    for i in range(0, len(x), bs):
        logits = model(x[i:i + bs])
        loss = F.binary_cross_entropy_with_logits(logits, y[i:i + bs])
        loss.backward()
        state.record()
        state.reset()
        optimizer.step()
    return loss.item()


x = torch.randn(256, 30)
y = (x[:, :TAGS] > 0.3).float()
model = Tagger()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
state = StepState(model, optimizer)
for epoch in range(4):
    print(epoch, train_epoch(model, optimizer, state, x, y), state.grad_norms[-1])
