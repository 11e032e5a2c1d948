# Audio-ish 1-D CNN keyword spotter; NLLLoss fed softmax output instead of log-softmax (2024).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class KeywordNet(nn.Module):
    def __init__(self, n_keywords=4):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 8, 5, stride=2)
        self.conv2 = nn.Conv1d(8, 16, 5, stride=2)
        self.fc = nn.Linear(16, n_keywords)

    def forward(self, wav):
        h = F.relu(self.conv1(wav))
        h = F.relu(self.conv2(h)).mean(-1)
        return F.softmax(self.fc(h), dim=1)


class KWSTrainer:
    def __init__(self):
        self.model = KeywordNet()
        self.criterion = nn.NLLLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=3e-3)

    def step(self, wav, target):
        out = self.model(wav)
        loss = self.criterion(out, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


t = torch.linspace(0, 1, 64)
targets = torch.randint(0, 4, (96,))
waves = torch.sin(2 * torch.pi * (targets.float().unsqueeze(1) + 1) * 3 * t).unsqueeze(1) + 0.1 * torch.randn(96, 1, 64)
trainer = KWSTrainer()
for epoch in range(5):
    losses = [trainer.step(waves[i:i + 24], targets[i:i + 24]) for i in range(0, 96, 24)]
    print(f"epoch {epoch} nll {sum(losses) / len(losses):.4f}")
