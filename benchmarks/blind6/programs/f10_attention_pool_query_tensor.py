# Attention pooling over a bag of instance features (multiple-instance learning).
# The learned query vector is a plain tensor attribute.
import torch
import torch.nn as nn
import torch.nn.functional as F


class AttnPoolMIL(nn.Module):
    def __init__(self, d_in=24, d=32, n_classes=2):
        super().__init__()
        self.encode = nn.Sequential(nn.Linear(d_in, d), nn.ReLU())
        self.query = torch.randn(d, requires_grad=True)
        self.classify = nn.Linear(d, n_classes)

    def forward(self, bag):
        h = self.encode(bag)
        attn = F.softmax(h @ self.query / h.size(-1) ** 0.5, dim=0)
        return self.classify((attn[:, None] * h).sum(0, keepdim=True))


model = AttnPoolMIL()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(3):
    total = 0.0
    for _ in range(20):
        bag = torch.randn(int(torch.randint(5, 15, (1,))), 24)
        label = torch.randint(0, 2, (1,))
        loss = F.cross_entropy(model(bag), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(epoch, total / 20)
