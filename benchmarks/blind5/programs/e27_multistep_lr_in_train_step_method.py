"""Classifier trainer with a MultiStepLR schedule taken from a ResNet recipe (decay at epochs 30 and 60)."""
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class Recipe:
    lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 1e-4
    milestones: list = field(default_factory=lambda: [30, 60])
    gamma: float = 0.1
    epochs: int = 2


class Trainer:
    def __init__(self, model, recipe):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=recipe.lr, momentum=recipe.momentum,
                                         weight_decay=recipe.weight_decay)
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones=recipe.milestones,
                                                              gamma=recipe.gamma)
        self.recipe = recipe

    def train_step(self, images, labels):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(images), labels)
        loss.backward()
        self.optimizer.step()
        self.scheduler.step()
        return loss.item()

    def fit(self, loader):
        for epoch in range(self.recipe.epochs):
            for images, labels in loader:
                loss = self.train_step(images, labels)
            print(epoch, round(loss, 4), self.scheduler.get_last_lr())


model = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
data = torch.utils.data.TensorDataset(torch.randn(800, 8, 8), torch.randint(0, 10, (800,)))
loader = torch.utils.data.DataLoader(data, batch_size=16, shuffle=True)
Trainer(model, Recipe()).fit(loader)
