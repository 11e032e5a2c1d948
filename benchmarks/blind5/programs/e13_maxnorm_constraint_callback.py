"""Trainer with callbacks; a max-norm constraint callback keeps the embedding weights bounded."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Callback:
    def on_step_end(self, trainer):
        pass


class MaxNorm(Callback):
    def __init__(self, module_name, max_norm=1.0):
        self.module_name = module_name
        self.max_norm = max_norm

    def on_step_end(self, trainer):
        w = getattr(trainer.model, self.module_name).weight
        norms = w.norm(dim=1, keepdim=True).clamp(min=self.max_norm)
        w.mul_(self.max_norm / norms)


class PrintLoss(Callback):
    def on_step_end(self, trainer):
        if trainer.global_step % 10 == 0:
            print(trainer.global_step, round(trainer.last_loss, 4))


class Recommender(nn.Module):
    def __init__(self, n_users=50, n_items=40, d=8):
        super().__init__()
        self.users = nn.Embedding(n_users, d)
        self.items = nn.Embedding(n_items, d)

    def forward(self, u, i):
        return (self.users(u) * self.items(i)).sum(-1)


class Trainer:
    def __init__(self, model, callbacks, lr=0.05):
        self.model = model
        self.callbacks = callbacks
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.global_step = 0
        self.last_loss = 0.0

    def fit(self, u, i, r, steps=30):
        for _ in range(steps):
            idx = torch.randint(0, len(r), (64,))
            loss = F.mse_loss(self.model(u[idx], i[idx]), r[idx])
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.global_step += 1
            self.last_loss = loss.item()
            for cb in self.callbacks:
                cb.on_step_end(self)


u = torch.randint(0, 50, (1000,))
i = torch.randint(0, 40, (1000,))
r = torch.randn(1000)
Trainer(Recommender(), [MaxNorm("users"), MaxNorm("items"), PrintLoss()]).fit(u, i, r)
