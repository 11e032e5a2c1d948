# heldout: expect=GD301 line=10 alt_lines=19,30 static=no
# Hand-written binary cross-entropy on raw (unscaled) features; sigmoid saturates and the loss becomes NaN.
import torch
import torch.nn as nn

torch.manual_seed(0)


def bce(p, y):
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()


class Logistic(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.linear = nn.Linear(d, 1)

    def forward(self, x):
        return torch.sigmoid(self.linear(x)).squeeze(1)


# raw sensor readings in the hundreds, not normalised
x = torch.randn(200, 6) * 100 + 300
y = (x[:, 0] > 300).float()
model = Logistic(6)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)

for epoch in range(30):
    p = model(x)
    loss = bce(p, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 10 == 0:
        print(epoch, loss.item())
