# Keras-like fit() with a history dict; per-batch losses appended as tensors (2025).
import torch
import torch.nn as nn
from collections import defaultdict

torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 20), nn.ReLU(), nn.Linear(20, 3))

    def forward(self, x):
        return self.net(x)


def fit(model, X, y, epochs=5, bs=25):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    history = defaultdict(list)
    for epoch in range(epochs):
        batch_losses = []
        for i in range(0, len(X), bs):
            logits = model(X[i:i + bs])
            loss = loss_fn(logits, y[i:i + bs])
            opt.zero_grad()
            loss.backward()
            opt.step()
            batch_losses.append(loss)
        epoch_loss = torch.stack(batch_losses).mean()
        history["loss"].append(epoch_loss)
        print(f"Epoch {epoch + 1}/{epochs} - loss: {epoch_loss:.4f}")
    return history


X = torch.randn(150, 5)
y = torch.randint(0, 3, (150,))
hist = fit(Model(), X, y)
