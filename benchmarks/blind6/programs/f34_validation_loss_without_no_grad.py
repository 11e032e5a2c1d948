# Regression on tabular data with a validation pass each epoch; the model is
# put in eval mode, but the validation losses are summed with autograd on.
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(1200, 14)
y = (X[:, 0] * 2 - X[:, 1] ** 2 + 0.1 * torch.randn(1200)).unsqueeze(1)
X_train, y_train, X_val, y_val = X[:1000], y[:1000], X[1000:], y[1000:]

model = nn.Sequential(nn.Linear(14, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def evaluate(model, X, y, bs=50):
    model.eval()
    val_loss = 0
    for i in range(0, len(X), bs):
        val_loss += criterion(model(X[i:i + bs]), y[i:i + bs])
    return val_loss / (len(X) // bs)


for epoch in range(5):
    model.train()
    for i in range(0, 1000, 50):
        optimizer.zero_grad()
        loss = criterion(model(X_train[i:i + 50]), y_train[i:i + 50])
        loss.backward()
        optimizer.step()
    val = evaluate(model, X_val, y_val)
    print(f"epoch {epoch} train {loss.item():.4f} val {val.item():.4f}")
