"""torchvision-style `train_one_epoch`, with the epoch scheduler StepLR stepped after every batch: its
step_size of 3 epochs passes in 3 batches and the learning rate is gone before the second epoch."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(320, 10)
y = (x[:, :3].sum(1) > 0).long()
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.1)


def train_one_epoch(epoch):
    model.train()
    for i in range(0, 320, 32):
        loss = nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
    print(f"epoch {epoch}: lr {optimizer.param_groups[0]['lr']:.1e} loss {loss.item():.4f}")


for epoch in range(6):
    train_one_epoch(epoch)
