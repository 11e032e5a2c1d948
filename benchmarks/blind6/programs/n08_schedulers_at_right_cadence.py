# Schedulers at the right cadence: OneCycleLR per batch (after optimizer.step),
# StepLR on the other model once per epoch, after the batch loop.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

EPOCHS = 3
loader = DataLoader(TensorDataset(torch.randn(640, 20), torch.randint(0, 4, (640,))), batch_size=32, shuffle=True)
model_a = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))
model_b = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))
opt_a = torch.optim.SGD(model_a.parameters(), lr=0.1, momentum=0.9)
opt_b = torch.optim.AdamW(model_b.parameters(), lr=1e-3)
one_cycle = torch.optim.lr_scheduler.OneCycleLR(opt_a, max_lr=0.1, epochs=EPOCHS, steps_per_epoch=len(loader))
decay = torch.optim.lr_scheduler.StepLR(opt_b, step_size=2, gamma=0.5)

for epoch in range(EPOCHS):
    for x, y in loader:
        for model, opt in ((model_a, opt_a), (model_b, opt_b)):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        one_cycle.step()
    decay.step()
    print(epoch, loss.item(), one_cycle.get_last_lr()[0], decay.get_last_lr()[0])
