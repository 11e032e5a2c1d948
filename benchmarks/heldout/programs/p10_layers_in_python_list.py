# heldout: expect=GD105 line=14 alt_lines=- static=yes
# An MLP with a configurable number of hidden layers kept in a plain Python list.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class DeepMLP(nn.Module):
    def __init__(self, d_in, d_hidden, d_out, n_hidden=3):
        super().__init__()
        self.inp = nn.Linear(d_in, d_hidden)
        self.hidden = [nn.Linear(d_hidden, d_hidden) for _ in range(n_hidden)]
        self.out = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        x = F.relu(self.inp(x))
        for layer in self.hidden:
            x = F.relu(layer(x))
        return self.out(x)


def train(model, x, y, epochs=40):
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(epochs):
        pred = model(x)
        loss = F.mse_loss(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            print(epoch, loss.item())


x = torch.randn(128, 5)
y = torch.sin(x.sum(1, keepdim=True))
train(DeepMLP(5, 32, 1), x, y)
