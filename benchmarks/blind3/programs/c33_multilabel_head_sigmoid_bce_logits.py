"""Multi-label tagging: a classifier module whose forward returns probabilities, trained with a loss attribute."""
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, d=24, tags=6):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 48), nn.ReLU())
        self.head = nn.Linear(48, tags)
        self.act = nn.Sigmoid()

    def forward(self, x):
        return self.act(self.head(self.body(x)))


class TaggingTask:
    def __init__(self):
        self.model = Tagger()
        self.criterion = nn.BCEWithLogitsLoss(pos_weight=torch.full((6,), 2.0))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def step(self, x, y):
        scores = self.model(x)
        loss = self.criterion(scores, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


task = TaggingTask()
for it in range(4):
    task.step(torch.randn(8, 24), (torch.rand(8, 6) > 0.7).float())
