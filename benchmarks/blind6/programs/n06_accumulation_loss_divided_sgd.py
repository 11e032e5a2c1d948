# Gradient accumulation with SGD done right: each micro-batch loss divided by
# the accumulation count, step and zero every N micro-batches.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

accum_steps = 4
model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 5))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loader = DataLoader(TensorDataset(torch.randn(512, 32), torch.randint(0, 5, (512,))), batch_size=16, shuffle=True)

optimizer.zero_grad()
for epoch in range(2):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
    print(epoch, loss.item() * accum_steps)
