# Learned query as nn.Parameter, heads built in a list then wrapped in a
# ModuleList, a fixed positional table as a buffer (requires no grad).
import torch
import torch.nn as nn
import torch.nn.functional as F


class PoolClassifier(nn.Module):
    def __init__(self, d=32, n_heads=3, n_classes=4, max_len=20):
        super().__init__()
        self.proj = nn.Linear(16, d)
        self.query = nn.Parameter(torch.randn(d) * 0.02)
        self.register_buffer("pos", torch.randn(max_len, d) * 0.1)
        heads = []
        for _ in range(n_heads):
            heads.append(nn.Linear(d, n_classes))
        self.heads = nn.ModuleList(heads)

    def forward(self, x):
        h = self.proj(x) + self.pos[: x.size(1)]
        attn = F.softmax(h @ self.query, dim=1)
        pooled = (attn.unsqueeze(-1) * h).sum(1)
        return torch.stack([head(pooled) for head in self.heads]).mean(0)


model = PoolClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(20):
    x, y = torch.randn(8, 20, 16), torch.randint(0, 4, (8,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.item(), sum(p.numel() for p in model.parameters()))
