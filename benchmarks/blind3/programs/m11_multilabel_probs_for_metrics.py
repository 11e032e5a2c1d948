"""Multi-label tagging trained on logits; sigmoid only for the F1 metric."""
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, d=24, tags=6):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 48), nn.ReLU())
        self.head = nn.Linear(48, tags)

    def forward(self, x):
        return self.head(self.body(x))


model = Tagger()
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(4):
    x, y = torch.randn(8, 24), (torch.rand(8, 6) > 0.7).float()
    logits = model(x)
    loss = criterion(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    probs = torch.sigmoid(logits.detach())
    preds = (probs > 0.5).float()
    f1 = 2 * (preds * y).sum() / (preds.sum() + y.sum()).clamp(min=1)
    print(it, loss.item(), f1.item())
