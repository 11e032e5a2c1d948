# heldout: expect=GD103 line=20 alt_lines=19 static=yes
# Multi-label classifier; the loss is built with reduction='none' for later weighting and backpropagated as is.
import torch
import torch.nn as nn

torch.manual_seed(0)


class MultiLabelTrainer:
    def __init__(self, model, n_labels):
        self.model = model
        self.criterion = nn.BCEWithLogitsLoss(reduction="none")
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.n_labels = n_labels

    def step(self, x, targets):
        self.optimizer.zero_grad()
        logits = self.model(x)
        loss = self.criterion(logits, targets)
        loss.backward()
        self.optimizer.step()
        return loss.mean().item()

    def fit(self, x, targets, epochs=2, bs=16):
        for epoch in range(epochs):
            for i in range(0, len(x), bs):
                value = self.step(x[i:i + bs], targets[i:i + bs])
            print(epoch, value)


x = torch.randn(96, 24)
targets = (torch.rand(96, 5) > 0.7).float()
model = nn.Sequential(nn.Linear(24, 32), nn.ReLU(), nn.Linear(32, 5))
MultiLabelTrainer(model, 5).fit(x, targets)
