"""A train function with hooks given as functions and a small optimizer wrapper (in the style of
accelerate's AcceleratedOptimizer): clip before the step, schedule after each epoch, and a
metrics reset that clears the wrapper's gradients once the step is done."""
import torch
import torch.nn as nn


class WrappedOptimizer:
    def __init__(self, optimizer):
        self.optimizer = optimizer

    def zero_grad(self):
        self.optimizer.zero_grad(set_to_none=True)

    def step(self):
        self.optimizer.step()


class Meters:
    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.total, self.count = 0.0, 0

    def update(self, loss):
        self.total += loss.item()
        self.count += 1

    def reset(self):
        self.total, self.count = 0.0, 0
        self.optimizer.zero_grad()


def clip(model):
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)


def make_epoch_end(scheduler):
    def epoch_end(epoch):
        scheduler.step()
    return epoch_end


def train(model, loader, optimizer, meters, epochs, before_step=None, epoch_end=None):
    for epoch in range(epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            meters.update(loss)
            if before_step is not None:
                before_step(model)
            optimizer.step()
            meters.reset()
        if epoch_end is not None:
            epoch_end(epoch)


model = nn.Sequential(nn.Linear(8, 32), nn.GELU(), nn.Linear(32, 1))
base = torch.optim.AdamW(model.parameters(), lr=1e-3)
optimizer = WrappedOptimizer(base)
meters = Meters(optimizer)
scheduler = torch.optim.lr_scheduler.StepLR(base, step_size=5)
loader = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(40)]
train(model, loader, optimizer, meters, 20, before_step=clip, epoch_end=make_epoch_end(scheduler))
