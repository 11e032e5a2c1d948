# heldout: expect=none
# Correct: per-batch .item() logging averaged into a tensor for a history, and a temperature
# initialised from a number and fitted afterwards on held-out logits.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(192, 8), torch.randint(0, 3, (192,))
x = x + y.unsqueeze(1).float()
history = []
for epoch in range(4):
    values = []
    for i in range(0, 192, 32):
        loss = F.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        values.append(loss.item())
    history.append(torch.tensor(sum(values) / len(values)))
print(torch.stack(history))

with torch.no_grad():
    logits = model(x)
temperature = torch.tensor(logits.std().item(), requires_grad=True)
t_opt = torch.optim.SGD([temperature], lr=0.01)
for _ in range(20):
    t_loss = F.cross_entropy(logits / temperature, y)
    t_opt.zero_grad()
    t_loss.backward()
    t_opt.step()
print(temperature.item())
