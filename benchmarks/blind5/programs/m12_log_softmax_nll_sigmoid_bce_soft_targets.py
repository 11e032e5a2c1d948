"""Three heads, three correct loss pairings: log_softmax + NLLLoss, sigmoid + BCELoss, soft-target CE."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MultiHead(nn.Module):
    def __init__(self, din=20):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(din, 64), nn.ReLU())
        self.cls = nn.Sequential(nn.Linear(64, 4), nn.LogSoftmax(dim=-1))
        self.tags = nn.Sequential(nn.Linear(64, 3), nn.Sigmoid())
        self.distill = nn.Linear(64, 4)

    def forward(self, x):
        h = self.body(x)
        return self.cls(h), self.tags(h), self.distill(h)


teacher = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
model = MultiHead()
nll, bce, ce = nn.NLLLoss(), nn.BCELoss(), nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for it in range(40):
    x = torch.randn(32, 20)
    y = x[:, :4].argmax(1)
    tags = (x[:, 4:7] > 0).float()
    with torch.no_grad():
        soft = F.softmax(teacher(x) / 2.0, dim=-1)
    log_probs, tag_probs, logits = model(x)
    loss = nll(log_probs, y) + bce(tag_probs, tags) + ce(logits, soft)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 10 == 0:
        conf = F.softmax(logits.detach(), dim=-1).max(1).values.mean()
        print(it, round(loss.item(), 4), round(conf.item(), 3))
