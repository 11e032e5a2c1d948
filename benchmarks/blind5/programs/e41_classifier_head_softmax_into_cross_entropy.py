"""Audio-like spectrogram classifier (1-D conv) whose head outputs class probabilities."""
import torch
import torch.nn as nn

torch.manual_seed(0)
CLASSES = 5


def build_head(din, classes):
    return nn.Sequential(
        nn.Linear(din, 64),
        nn.ReLU(),
        nn.Dropout(0.2),
        nn.Linear(64, classes),
        nn.Softmax(dim=1),
    )


class SpecNet(nn.Module):
    def __init__(self, mels=16):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(mels, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool1d(1))
        self.head = build_head(32, CLASSES)

    def forward(self, spec):
        return self.head(self.conv(spec).squeeze(-1))


class Learner:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def step(self, spec, label):
        self.model.train()
        out = self.model(spec)
        loss = self.criterion(out, label)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


specs = torch.randn(400, 16, 20)
labels = specs[:, :CLASSES].mean(-1).argmax(1)
learner = Learner(SpecNet())
for epoch in range(3):
    for i in range(0, 400, 40):
        loss = learner.step(specs[i:i + 40], labels[i:i + 40])
    print(epoch, round(loss, 4))
