import torch
from torch import nn

from model import Classifier

torch.manual_seed(0)
model = Classifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

for step in range(100):
    x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step}: loss {loss.item():.3f}")
