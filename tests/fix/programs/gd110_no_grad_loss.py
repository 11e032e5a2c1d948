"""The forward pass and the loss computed under torch.no_grad() "to save memory": nothing can learn."""
import torch
from torch import nn

torch.manual_seed(0)
true_w = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

for step in range(30):
    x = torch.randn(64, 8)
    with torch.no_grad():  # saves memory
        prediction = model(x)
        loss = nn.functional.mse_loss(prediction, x @ true_w)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
