"""A Trainer class in the style of many research repositories: the loop spread over methods.

fit() calls training_step() (backward) and optimizer_step() (step, then zero_grad);
the scheduler is built in __init__ and stepped once per epoch; evaluate() runs under
no_grad and adds criterion(...) tensors to a running total; a loss history keeps
numbers; a reduction='none' criterion is weighted and reduced before backward;
set_grad_enabled(False) in a metrics helper is restored before training resumes.
"""

import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, lr=1e-3, epochs=10):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=3, gamma=0.5)
        self.criterion = nn.CrossEntropyLoss(reduction="none")
        self.epochs = epochs
        self.history = []

    def training_step(self, x, y, weights):
        per_sample = self.criterion(self.model(x), y)
        loss = (per_sample * weights).mean()
        loss.backward()
        return loss.detach()

    def optimizer_step(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.model.zero_grad()

    @torch.no_grad()
    def evaluate(self, val_loader):
        self.model.eval()
        total = 0
        for x, y, _ in val_loader:
            total += self.criterion(self.model(x), y).mean()
        self.model.train()
        return total.item() / max(1, len(val_loader))

    def accuracy(self, val_loader):
        torch.set_grad_enabled(False)
        correct = 0
        for x, y, _ in val_loader:
            correct += (self.model(x).argmax(1) == y).sum().item()
        torch.set_grad_enabled(True)
        return correct

    def fit(self, loader, val_loader):
        for epoch in range(self.epochs):
            running = 0.0
            for i, (x, y, w) in enumerate(loader):
                loss = self.training_step(x, y, w)
                self.optimizer_step()
                running += loss.item()
                self.history.append(loss.item())
                if i % 50 == 49:
                    print(f"epoch {epoch} step {i}: {running / 50:.4f}")
                    running = 0.0
            self.scheduler.step()
            print(f"val loss {self.evaluate(val_loader):.4f}, correct {self.accuracy(val_loader)}")


if __name__ == "__main__":
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
    data = [(torch.randn(16, 20), torch.randint(0, 5, (16,)), torch.rand(16)) for _ in range(8)]
    Trainer(model, epochs=2).fit(data, data[:2])
