"""Binary classifier with a per-epoch validation AUC computed from collected scores."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def auc(scores, labels):
    order = scores.argsort(descending=True)
    labels = labels[order]
    tp = labels.cumsum(0)
    fp = (1 - labels).cumsum(0)
    tpr = tp / labels.sum()
    fpr = fp / (1 - labels).sum()
    return torch.trapezoid(tpr, fpr).item()


class Scorer(nn.Module):
    def __init__(self, din=20):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(din, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def validate(model, loader):
    model.eval()
    scores, labels = [], []
    for xb, yb in loader:
        scores.append(torch.sigmoid(model(xb)))
        labels.append(yb)
    model.train()
    return auc(torch.cat(scores), torch.cat(labels))


x = torch.randn(1200, 20)
y = ((x[:, 0] + 0.5 * x[:, 1] + 0.3 * torch.randn(1200)) > 0).float()
train = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[:1000], y[:1000]), batch_size=50, shuffle=True)
val = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x[1000:], y[1000:]), batch_size=50)
model = Scorer()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    for xb, yb in train:
        loss = F.binary_cross_entropy_with_logits(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 4), "val auc", round(validate(model, val), 4))
