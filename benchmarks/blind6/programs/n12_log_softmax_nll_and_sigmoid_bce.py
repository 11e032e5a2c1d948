# Probability outputs paired with the losses that expect them: LogSoftmax +
# NLLLoss, Sigmoid + BCELoss, and softmax used only for accuracy.
import torch
import torch.nn as nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 32), nn.ReLU())
        self.cls = nn.Sequential(nn.Linear(32, 4), nn.LogSoftmax(dim=1))
        self.flag = nn.Sequential(nn.Linear(32, 1), nn.Sigmoid())

    def forward(self, x):
        h = self.body(x)
        return self.cls(h), self.flag(h).squeeze(1)


model = TwoHeads()
nll, bce = nn.NLLLoss(), nn.BCELoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(30):
    x, y, f = torch.randn(32, 12), torch.randint(0, 4, (32,)), torch.randint(0, 2, (32,)).float()
    log_probs, p_flag = model(x)
    loss = nll(log_probs, y) + bce(p_flag, f)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (torch.softmax(log_probs, 1).argmax(1) == y).float().mean()
    if step % 10 == 0:
        print(step, loss.item(), acc.item())
