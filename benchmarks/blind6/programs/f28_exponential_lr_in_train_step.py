# Recommendation model (matrix factorisation with biases) trained by a
# Trainer whose train_step also decays the learning rate with ExponentialLR.
import torch
import torch.nn as nn
import torch.nn.functional as F


class MF(nn.Module):
    def __init__(self, n_users=100, n_items=200, k=16):
        super().__init__()
        self.u = nn.Embedding(n_users, k)
        self.i = nn.Embedding(n_items, k)
        self.ub = nn.Embedding(n_users, 1)
        self.ib = nn.Embedding(n_items, 1)

    def forward(self, users, items):
        dot = (self.u(users) * self.i(items)).sum(-1)
        return dot + self.ub(users).squeeze(-1) + self.ib(items).squeeze(-1)


class Trainer:
    def __init__(self, model, lr=0.05, gamma=0.9):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.optimizer, gamma=gamma)

    def train_step(self, users, items, ratings):
        self.optimizer.zero_grad()
        loss = F.mse_loss(self.model(users, items), ratings)
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()
        return loss.item()

    def fit(self, triples, epochs=3, bs=128):
        for epoch in range(epochs):
            perm = torch.randperm(len(triples))
            for start in range(0, len(triples), bs):
                u, i, r = triples[perm[start:start + bs]].unbind(1)
                loss = self.train_step(u.long(), i.long(), r)
            print(epoch, loss, self.scheduler.get_last_lr())


ratings = torch.stack([torch.randint(0, 100, (2000,)).float(), torch.randint(0, 200, (2000,)).float(),
                       torch.randint(1, 6, (2000,)).float()], dim=1)
Trainer(MF()).fit(ratings)
