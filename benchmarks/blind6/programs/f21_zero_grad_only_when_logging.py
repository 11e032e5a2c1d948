# Speech-command style 1-D CNN with a Trainer; zero_grad ended up inside the
# logging branch during a refactor.
import torch
import torch.nn as nn
import torch.nn.functional as F


class KeywordCNN(nn.Module):
    def __init__(self, n_classes=6):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(1, 16, 9, stride=4), nn.BatchNorm1d(16), nn.ReLU(),
                                  nn.Conv1d(16, 32, 5, stride=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.fc = nn.Linear(32, n_classes)

    def forward(self, wav):
        return self.fc(self.conv(wav).squeeze(-1))


class Trainer:
    def __init__(self, model, log_every=10):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        self.log_every = log_every
        self.global_step = 0

    def training_step(self, wav, label):
        loss = F.cross_entropy(self.model(wav), label)
        loss.backward()
        self.optimizer.step()
        if self.global_step % self.log_every == 0:
            print(f"step {self.global_step}: loss {loss.item():.4f}")
            self.optimizer.zero_grad()
        self.global_step += 1

    def fit(self, data, labels, epochs=2, bs=16):
        self.model.train()
        for _ in range(epochs):
            for i in range(0, len(data), bs):
                self.training_step(data[i:i + bs], labels[i:i + bs])


Trainer(KeywordCNN()).fit(torch.randn(128, 1, 800), torch.randint(0, 6, (128,)))
