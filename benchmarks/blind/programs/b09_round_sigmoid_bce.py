# Binary churn classifier; predictions rounded to 0/1 before the loss "to match the labels" (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)

X = torch.randn(200, 6)
y = (X[:, 0] - 0.5 * X[:, 3] > 0).float()


class ChurnNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc2(torch.relu(self.fc1(x))))


class Trainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.criterion = nn.BCELoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def train_step(self, xb, yb):
        self.model.train()
        probs = self.model(xb).squeeze(1)
        preds = torch.round(probs)
        loss = self.criterion(preds, yb)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item(), (preds == yb).float().mean().item()

    def fit(self, epochs=10, bs=40):
        for epoch in range(epochs):
            for i in range(0, len(X), bs):
                loss, acc = self.train_step(X[i:i + bs], y[i:i + bs])
            print(f"epoch {epoch} loss {loss:.4f} acc {acc:.3f}")


Trainer(ChurnNet()).fit()
