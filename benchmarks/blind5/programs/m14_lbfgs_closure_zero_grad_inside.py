"""Full-batch curve fitting with L-BFGS: the closure clears, evaluates and backpropagates."""
import torch
import torch.nn as nn

torch.manual_seed(0)


class Curve(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, t):
        return self.net(t)


t = torch.linspace(-2, 2, 200).unsqueeze(1)
target = torch.sin(3 * t) * torch.exp(-t ** 2) + 0.02 * torch.randn_like(t)
model = Curve()
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=20, history_size=10,
                              line_search_fn="strong_wolfe")
criterion = nn.MSELoss()
history = []


def make_closure(model, optimizer, inputs, targets):
    def closure():
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        return loss
    return closure


for outer in range(5):
    loss = optimizer.step(make_closure(model, optimizer, t, target))
    history.append(loss.item())
    print(outer, round(history[-1], 6))
