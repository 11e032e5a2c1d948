# heldout: expect=GD101 line=18 alt_lines=20 static=yes
# A classifier whose loss helper converts the loss to a float "for logging" and re-wraps it.
import torch
import torch.nn as nn

torch.manual_seed(0)

X = torch.randn(256, 20)
y = (X[:, 0] + X[:, 1] > 0).long()

model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)


def compute_loss(logits, labels):
    loss = criterion(logits, labels)
    loss_value = loss.item()
    # backward() complained that the loss does not require grad, so:
    return torch.tensor(loss_value, requires_grad=True)


for epoch in range(5):
    for i in range(0, 256, 32):
        xb, yb = X[i:i + 32], y[i:i + 32]
        logits = model(xb)
        loss = compute_loss(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
