# Prototypical classifier with learnable prototypes kept on the unit sphere after each step;
# the renormalisation runs outside no_grad.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ProtoNet(nn.Module):
    def __init__(self, d=16, classes=5, emb=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, emb))
        self.prototypes = nn.Parameter(F.normalize(torch.randn(classes, emb), dim=1))

    def forward(self, x):
        z = F.normalize(self.encoder(x), dim=1)
        return z @ self.prototypes.t() * 10.0


model = ProtoNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(20):
    x = torch.randn(32, 16)
    y = torch.randint(0, 5, (32,))
    loss = F.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model.prototypes.div_(model.prototypes.norm(dim=1, keepdim=True))
    print(step, loss.item())
