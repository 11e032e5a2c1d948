# heldout: expect=GD101 line=17 alt_lines=19 static=yes
# Per-sample loss floats summed, with per-sample accuracy read by .item() in between.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(96, 8), torch.randint(0, 3, (96,))

for epoch in range(3):
    for i in range(0, 96, 12):
        total, correct = 0.0, 0
        for j in range(i, i + 12):
            logits = model(x[j:j + 1])
            total += F.cross_entropy(logits, y[j:j + 1]).item()
            correct += int((logits.argmax(1) == y[j]).item())
        loss = torch.tensor(total / 12, requires_grad=True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, total / 12, correct / 12)
