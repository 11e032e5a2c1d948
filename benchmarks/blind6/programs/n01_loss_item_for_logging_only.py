# Regression where the loss is logged with .item() and the epoch average is a
# float; the tensor itself is backpropagated.
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(256, 6)
y = X @ torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0, 1.0]) + 0.1 * torch.randn(256)

model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
history = []

for epoch in range(5):
    epoch_loss = 0.0
    for i in range(0, 256, 32):
        optimizer.zero_grad()
        loss = criterion(model(X[i:i + 32]).squeeze(1), y[i:i + 32])
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        history.append(float(loss))
    print(f"epoch {epoch}: {epoch_loss / 8:.4f}, best batch {min(history):.4f}")
