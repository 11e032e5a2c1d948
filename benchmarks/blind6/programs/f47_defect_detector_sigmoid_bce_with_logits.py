# Binary defect detector on image patches; the model's forward applies the
# sigmoid and the trainer uses BCEWithLogitsLoss with a positive-class weight.
import torch
import torch.nn as nn


class DefectNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(16, 1)

    def forward(self, x):
        logit = self.classifier(self.features(x).flatten(1))
        return torch.sigmoid(logit).squeeze(1)


class Trainer:
    def __init__(self, model, pos_weight):
        self.model = model
        self.criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(pos_weight))
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def train_one_epoch(self, batches):
        self.model.train()
        total = 0.0
        for patches, is_defect in batches:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(patches), is_defect)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(batches)


batches = [(torch.randn(16, 1, 28, 28), (torch.rand(16) < 0.1).float()) for _ in range(10)]
trainer = Trainer(DefectNet(), pos_weight=9.0)
for epoch in range(3):
    print(epoch, trainer.train_one_epoch(batches))
