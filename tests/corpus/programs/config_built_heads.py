"""A multi-task model built from a config, in the style of detection and multi-task repositories.

Layers are collected in a Python list and wrapped in nn.ModuleList; the heads are
filled into an nn.ModuleDict in a loop; a legacy block list is registered with
add_module. Training uses a helper returning (tensor, number) unpacked in order, a
mask made from the targets, and numpy only for the logged metric.
"""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self, config):
        super().__init__()
        layers = []
        for i in range(len(config["sizes"]) - 1):
            layers.append(nn.Linear(config["sizes"][i], config["sizes"][i + 1]))
        self.layers = nn.ModuleList(layers)
        self.blocks = [nn.Linear(config["sizes"][-1], config["sizes"][-1]) for _ in range(config["extra"])]
        for i, block in enumerate(self.blocks):
            self.add_module(f"block_{i}", block)

    def forward(self, x):
        for layer in self.layers:
            x = F.relu(layer(x))
        for block in self.blocks:
            x = x + block(x)
        return x


class MultiTask(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.backbone = Backbone(config)
        self.heads = nn.ModuleDict()
        for name, n in config["tasks"].items():
            self.heads[name] = nn.Linear(config["sizes"][-1], n)

    def forward(self, x):
        h = self.backbone(x)
        return {name: head(h) for name, head in self.heads.items()}


def compute_loss(model, x, targets, pad_idx=-1):
    outputs = model(x)
    loss = 0
    for name, logits in outputs.items():
        y = targets[name]
        mask = (y != pad_idx).float()
        per = F.cross_entropy(logits, y.clamp(min=0), reduction="none")
        loss = loss + (per * mask).sum() / mask.sum().clamp(min=1)
    return loss, loss.item()


def train(model, loader, optimizer, scheduler, epochs=3):
    errors = []
    for epoch in range(epochs):
        for x, targets in loader:
            optimizer.zero_grad()
            loss, value = compute_loss(model, x, targets)
            loss.backward()
            optimizer.step()
            scheduler.step()
            errors.append(value)
        print(epoch, float(np.mean(errors)))


if __name__ == "__main__":
    config = {"sizes": [16, 32, 32], "extra": 2, "tasks": {"a": 3, "b": 4}}
    model = MultiTask(config)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=30)
    data = [(torch.randn(8, 16), {"a": torch.randint(0, 3, (8,)), "b": torch.randint(0, 4, (8,))}) for _ in range(10)]
    train(model, data, optimizer, scheduler)
