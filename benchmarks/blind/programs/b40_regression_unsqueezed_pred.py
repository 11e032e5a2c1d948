# House-price style regression in a Trainer class; target (N,) against prediction (N, 1) (2024).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

X = torch.randn(240, 7)
prices = X @ torch.randn(7) + 0.3 * torch.randn(240)
loader = DataLoader(TensorDataset(X, prices), batch_size=40, shuffle=True)


class PriceModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(7, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


class RegressionTrainer:
    def __init__(self, model):
        self.model = model
        self.loss_fn = nn.MSELoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

    def training_step(self, batch):
        features, target = batch
        prediction = self.model(features)
        loss = self.loss_fn(prediction, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, epochs):
        for epoch in range(epochs):
            losses = [self.training_step(batch) for batch in loader]
            print(f"epoch {epoch} mse {sum(losses) / len(losses):.4f}")


RegressionTrainer(PriceModel()).fit(6)
