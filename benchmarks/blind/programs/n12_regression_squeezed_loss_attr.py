# Correct: regression trainer with self.loss_fn; prediction squeezed to the target's shape.
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(240, 7)
prices = X @ torch.randn(7) + 0.3 * torch.randn(240)


class RegressionTrainer:
    def __init__(self, model):
        self.model = model
        self.loss_fn = nn.MSELoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

    def training_step(self, features, target):
        prediction = self.model(features).squeeze(-1)
        loss = self.loss_fn(prediction, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, epochs):
        for epoch in range(epochs):
            losses = [self.training_step(X[i:i + 40], prices[i:i + 40]) for i in range(0, 240, 40)]
            print(f"epoch {epoch} mse {sum(losses) / len(losses):.4f}")


RegressionTrainer(nn.Sequential(nn.Linear(7, 32), nn.ReLU(), nn.Linear(32, 1))).fit(6)
