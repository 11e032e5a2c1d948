# Correct: fit() keeps detached losses and floats; the running total uses .item().
import torch
import torch.nn as nn
from collections import defaultdict

torch.manual_seed(0)


def fit(model, X, y, epochs=5, bs=25):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    history = defaultdict(list)
    for epoch in range(epochs):
        batch_losses = []
        train_loss = 0.0
        for i in range(0, len(X), bs):
            loss = loss_fn(model(X[i:i + bs]), y[i:i + bs])
            opt.zero_grad()
            loss.backward()
            opt.step()
            batch_losses.append(loss.detach())
            train_loss += loss.item()
        epoch_loss = torch.stack(batch_losses).mean()
        history["loss"].append(epoch_loss)
        print(f"Epoch {epoch + 1}/{epochs} - loss: {epoch_loss:.4f} total {train_loss:.3f}")
    return history


X = torch.randn(150, 5)
y = torch.randint(0, 3, (150,))
hist = fit(nn.Sequential(nn.Linear(5, 20), nn.ReLU(), nn.Linear(20, 3)), X, y)
