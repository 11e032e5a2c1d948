# A baseline evaluation before training switches grad mode off with a plain call, and it is
# never switched back on before the training loop.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
X_val, y_val = torch.randn(64, 10), torch.randint(0, 3, (64,))

model.eval()
torch.set_grad_enabled(False)
baseline = (model(X_val).argmax(1) == y_val).float().mean().item()
print(f"baseline accuracy {baseline:.3f}")

model.train()
for step in range(20):
    x, y = torch.randn(32, 10), torch.randint(0, 3, (32,))
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
