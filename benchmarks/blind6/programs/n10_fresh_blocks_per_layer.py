# Stacks built with a fresh module per layer: a ModuleList comprehension that
# constructs each block, a Sequential of new layers, and a dict of new heads.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return x + F.gelu(self.fc(self.norm(x)))


class Net(nn.Module):
    def __init__(self, d=32, depth=3, tasks=("a", "b")):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d) for _ in range(depth)])
        self.mlp = nn.Sequential(*[nn.Sequential(nn.Linear(d, d), nn.ReLU()) for _ in range(2)])
        self.heads = nn.ModuleDict({t: nn.Linear(d, 2) for t in tasks})

    def forward(self, x, task):
        for blk in self.blocks:
            x = blk(x)
        return self.heads[task](self.mlp(x))


net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for step in range(20):
    task = "ab"[step % 2]
    loss = F.cross_entropy(net(torch.randn(16, 32), task), torch.randint(0, 2, (16,)))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.item())
