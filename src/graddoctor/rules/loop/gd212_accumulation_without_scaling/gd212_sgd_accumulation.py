"""GD212: gradient accumulation over 4 micro-batches with SGD, each micro-batch's mean loss backpropagated unscaled.

Built from a common forum report: "I added gradient accumulation to fit a bigger effective batch
and now training diverges / my loss is worse than without accumulation". The batch was split in 4,
the learning rate kept, and the 4 mean gradients add up to 4 times the gradient of the big batch.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
features = torch.randn(512, 20)
prices = features @ torch.randn(20, 1) + 0.1 * torch.randn(512, 1)
loader = DataLoader(TensorDataset(features, prices), batch_size=16, shuffle=True)

model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.MSELoss()
accum_steps = 4  # 4 micro-batches of 16 = one batch of 64

for epoch in range(2):
    optimizer.zero_grad()
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss.backward()  # expect: GD212
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
