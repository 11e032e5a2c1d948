# Sample-weighted regression (weights from a survey design); the per-sample
# losses are weighted and backpropagated as they are.
import torch
import torch.nn as nn

torch.manual_seed(1)
X = torch.randn(200, 10)
y = X[:, :3].sum(1, keepdim=True) + 0.2 * torch.randn(200, 1)
sample_w = torch.rand(200, 1) + 0.5

model = nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 1))
criterion = nn.MSELoss(reduction="none")
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(10):
    for i in range(0, 200, 25):
        xb, yb, wb = X[i:i + 25], y[i:i + 25], sample_w[i:i + 25]
        optimizer.zero_grad()
        loss = criterion(model(xb), yb) * wb
        loss.backward()
        optimizer.step()
    print(epoch, loss.mean().item())
