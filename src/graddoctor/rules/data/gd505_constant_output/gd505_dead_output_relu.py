"""GD505: a ReLU on the regression output died: every prediction is 0, whatever the input."""
# allow: GD111 GD204 GD304 GD306
import torch
from torch import nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(8, 32)
        self.out = nn.Linear(32, 1)
        self.final = nn.ReLU()  # "predictions are never negative"

    def forward(self, x):
        return self.final(self.out(torch.tanh(self.hidden(x))))


model = Regressor()
nn.init.constant_(model.out.bias, -5.0)  # after one large step the output sits below 0 for every input
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(60):
    x = torch.randn(32, 8)
    y = x[:, :1].abs()
    pred = model(x)  # expect: GD505
    loss = nn.functional.mse_loss(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
