# Script that scores the untrained model first "to save memory", then trains (2025 forum).
import torch
import torch.nn as nn

torch.manual_seed(0)

X = torch.randn(300, 12)
y = (X[:, :6].sum(1) > X[:, 6:].sum(1)).float().unsqueeze(1)
X_train, y_train, X_test, y_test = X[:240], y[:240], X[240:], y[240:]

model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)


def evaluate():
    model.eval()
    logits = model(X_test)
    acc = ((logits > 0).float() == y_test).float().mean().item()
    return criterion(logits, y_test).item(), acc


torch.set_grad_enabled(False)
base_loss, base_acc = evaluate()
print(f"untrained: loss {base_loss:.4f} acc {base_acc:.3f}")

for epoch in range(6):
    model.train()
    for i in range(0, 240, 40):
        logits = model(X_train[i:i + 40])
        loss = criterion(logits, y_train[i:i + 40])
        optimizer.zero_grad()
        if loss.requires_grad:
            loss.backward()
        optimizer.step()
    test_loss, test_acc = evaluate()
    print(f"epoch {epoch} train {loss.item():.4f} test {test_loss:.4f} acc {test_acc:.3f}")
