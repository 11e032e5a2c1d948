# Multi-task learning with learned homoscedastic uncertainty weights (Kendall et al.):
# the log-variances live in a dict of tensors on the model.
import torch
import torch.nn as nn
import torch.nn.functional as F

TASKS = ("depth", "normals")


class SharedNet(nn.Module):
    def __init__(self, d_in=12, d=48):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(d_in, d), nn.ReLU(), nn.Linear(d, d), nn.ReLU())
        self.depth = nn.Linear(d, 1)
        self.normals = nn.Linear(d, 3)
        self.log_vars = {t: torch.zeros(1, requires_grad=True) for t in TASKS}

    def forward(self, x):
        h = self.shared(x)
        return {"depth": self.depth(h), "normals": F.normalize(self.normals(h), dim=-1)}

    def weighted_loss(self, out, target):
        raw = {"depth": F.l1_loss(out["depth"], target["depth"]),
               "normals": (1 - (out["normals"] * target["normals"]).sum(-1)).mean()}
        return sum(torch.exp(-self.log_vars[t]) * raw[t] + self.log_vars[t] for t in TASKS).squeeze()


def synthetic_batch(n=64):
    return torch.randn(n, 12), {"depth": torch.rand(n, 1) * 10, "normals": F.normalize(torch.randn(n, 3), dim=-1)}


net = SharedNet()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
for it in range(40):
    x, target = synthetic_batch()
    loss = net.weighted_loss(net(x), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print({t: round(v.item(), 4) for t, v in net.log_vars.items()})
