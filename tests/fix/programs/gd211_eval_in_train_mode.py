"""An MLP with dropout and batch norm, validated after every epoch without model.eval()."""

import torch
from torch import nn

torch.manual_seed(0)
X, Y = torch.randn(512, 16), torch.randint(0, 3, (512,))
X_val, Y_val = torch.randn(128, 16), torch.randint(0, 3, (128,))
model = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.5), nn.Linear(64, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(5):
    for i in range(0, 512, 64):
        loss = nn.functional.cross_entropy(model(X[i:i + 64]), Y[i:i + 64])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    correct = 0
    with torch.no_grad():
        for j in range(0, 128, 32):
            out = model(X_val[j:j + 32])
            correct += (out.argmax(dim=1) == Y_val[j:j + 32]).sum().item()
    print(f"epoch {epoch} loss {loss.item():.4f} val acc {correct / 128:.3f}")
