# heldout: expect=GD211 line=18 alt_lines=17 static=yes
# evaluate() runs under no_grad but never switches the BatchNorm/Dropout model to eval mode.
import torch
import torch.nn as nn

torch.manual_seed(0)


def make_model():
    return nn.Sequential(
        nn.Linear(10, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(32, 2),
    )


def evaluate(model, x, y):
    with torch.no_grad():
        logits = model(x)
        return (logits.argmax(1) == y).float().mean().item()


def train_epoch(model, x, y, optimizer, bs=32):
    model.train()
    for i in range(0, len(x), bs):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x[i:i + bs]), y[i:i + bs])
        loss.backward()
        optimizer.step()
    return loss.item()


x = torch.randn(256, 10)
y = (x[:, 0] > 0).long()
xv = torch.randn(64, 10)
yv = (xv[:, 0] > 0).long()
model = make_model()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    loss = train_epoch(model, x, y, optimizer)
    print(epoch, loss, evaluate(model, xv, yv))
