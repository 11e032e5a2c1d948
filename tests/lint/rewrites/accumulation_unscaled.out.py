import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
accum_steps = 4
loader = [(torch.randn(16, 32), torch.randint(0, 10, (16,))) for _ in range(32)]

for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        logits = model(x)
        loss = criterion(logits, y)
        (loss / accum_steps).backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    print(f"epoch {epoch} loss {loss.item():.4f}")
