# House price regression: the loss is logged with .item() and the number is
# wrapped back into a tensor "so that backward works".
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(256, 6)
price = X @ torch.tensor([3.0, -1.0, 0.5, 2.0, 0.0, 1.5]) + 0.1 * torch.randn(256)

model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

batch_size = 32
for epoch in range(5):
    perm = torch.randperm(len(X))
    epoch_loss = 0.0
    for i in range(0, len(X), batch_size):
        idx = perm[i:i + batch_size]
        xb, yb = X[idx], price[idx]
        optimizer.zero_grad()
        pred = model(xb).squeeze(1)
        loss = criterion(pred, yb).item()
        epoch_loss += loss
        loss = torch.tensor(loss, requires_grad=True)
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: mse {epoch_loss / (len(X) // batch_size):.4f}")
