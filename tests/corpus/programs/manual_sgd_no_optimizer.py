"""A loop without an optimizer, as in the seed articles and pytorch/examples regression:
parameters updated by hand under no_grad, gradients cleared after each update."""

import torch
from torch import nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 16)
        self.out = nn.Linear(16, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


x = torch.randn(256, 4)
y = (x[:, :1] * 1.5 - x[:, 1:2]).tanh()
model = Regressor()
lr = 0.1
for epoch in range(5):
    for i in range(0, 256, 32):
        loss = nn.functional.mse_loss(model(x[i:i + 32]), y[i:i + 32])
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
                p.grad.zero_()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
