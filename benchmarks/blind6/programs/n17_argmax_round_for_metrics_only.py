# argmax, thresholds and rounding used for metrics only; the loss is computed
# from the logits. A detached copy is used for logging.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 5))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
X, Y = torch.randn(500, 10), torch.randint(0, 5, (500,))

for epoch in range(4):
    correct, seen = 0, 0
    for i in range(0, 500, 50):
        logits = model(X[i:i + 50])
        loss = F.cross_entropy(logits, Y[i:i + 50])
        opt.zero_grad()
        loss.backward()
        opt.step()
        pred = logits.detach().argmax(dim=1)
        correct += (pred == Y[i:i + 50]).sum().item()
        seen += 50
        confident = (logits.softmax(1).max(1).values > 0.5).float().mean().round()
    print(epoch, round(correct / seen, 3), confident.item())
