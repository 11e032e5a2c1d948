# Multi-label tagging: the model's forward ends in sigmoid (for predict()), and the training
# loss is binary_cross_entropy_with_logits on that output.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self, d=24, tags=6):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, 48), nn.ReLU())
        self.head = nn.Linear(48, tags)

    def forward(self, x):
        return torch.sigmoid(self.head(self.body(x)))

    def predict(self, x, threshold=0.5):
        return self(x) > threshold


model = Tagger()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(25):
    x = torch.randn(32, 24)
    y = (torch.rand(32, 6) > 0.7).float()
    probs = model(x)
    loss = F.binary_cross_entropy_with_logits(probs, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        print(step, loss.item())
