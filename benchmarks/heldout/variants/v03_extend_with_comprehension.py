# heldout: expect=GD101 line=22 alt_lines=23 static=yes
# A loss helper collecting per-head losses with extend() and a comprehension of .item().
import torch
import torch.nn as nn

torch.manual_seed(0)


class MultiHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 16)
        self.heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])

    def forward(self, x):
        h = torch.relu(self.body(x))
        return [head(h) for head in self.heads]


def total_loss(outputs, target):
    values = []
    values.extend([nn.functional.mse_loss(o, target).item() for o in outputs])
    return torch.tensor(sum(values), requires_grad=True)


model = MultiHead()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(64, 6), torch.randn(64, 1)
for step in range(30):
    loss = total_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(loss.item())
