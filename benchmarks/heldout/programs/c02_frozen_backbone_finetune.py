# heldout: expect=none
# Correct fine-tuning: frozen backbone, only the new head in the optimizer, proper evaluate().
import torch
import torch.nn as nn

torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(32, 3))

    def forward(self, x):
        return self.head(self.backbone(x))


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    return acc


model = Model()
model.backbone.requires_grad_(False)
optimizer = torch.optim.Adam(model.head.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()
x, y = torch.randn(300, 16), torch.randint(0, 3, (300,))
x = x + y.unsqueeze(1).float()

for epoch in range(4):
    model.train()
    model.backbone.eval()  # keep the frozen BatchNorm statistics
    for i in range(0, 300, 50):
        optimizer.zero_grad()
        loss = criterion(model(x[i:i + 50]), y[i:i + 50])
        loss.backward()
        optimizer.step()
    print(epoch, loss.item(), evaluate(model, x, y))
