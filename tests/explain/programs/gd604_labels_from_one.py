"""Three classes labelled 1, 2, 3 (as in the CSV), a head with three outputs."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x_all = torch.randn(60, 5)
y_all = torch.randint(1, 4, (60,))
for i in range(0, 60, 20):
    x, y = x_all[i:i + 20], y_all[i:i + 20]
    loss = nn.functional.cross_entropy(model(x), y)  # raises
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
