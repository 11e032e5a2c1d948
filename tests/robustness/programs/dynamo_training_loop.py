"""A training loop traced by dynamo three ways, as in pytorch#115607's reports: the whole loop
function under `torch._dynamo.optimize("eager")` (one iteration leaves the gradients None, so
`step` skips the parameters), the model compiled, and the train step compiled. The printed
optimizer step counters are the program's own result: graddoctor must leave them as they are."""
import torch
from torch import nn

torch.manual_seed(0)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x)


def training_loop(model, optimizer, x, y):
    first = next(model.parameters())
    for i in range(4):
        optimizer.zero_grad()
        if i != 1:  # this iteration skips the backward: every .grad stays None
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
        optimizer.step()
        print("step", int(optimizer.state[first]["step"]) if first in optimizer.state else 0)


x, y = torch.randn(32, 4), torch.randn(32, 1)

model = Regressor()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
print("loop under dynamo")
torch._dynamo.optimize("eager")(training_loop)(model, optimizer, x, y)

model = Regressor()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
print("compiled model")
training_loop(torch.compile(model, backend="aot_eager"), optimizer, x, y)

model = Regressor()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)


@torch.compile(backend="aot_eager")
def train_step(xb, yb):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(xb), yb)
    loss.backward()
    optimizer.step()
    return loss


print("compiled step")
for _ in range(4):
    train_step(x, y)
print("weight sum", round(float(sum(p.detach().sum() for p in model.parameters())), 4))
