# heldout: expect=GD110 line=20 alt_lines=22,35 static=yes
# A @torch.no_grad() prediction helper written for evaluation is reused in the training loop.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 32)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


@torch.no_grad()
def predict(model, x):
    return model(x)


def evaluate(model, x, y):
    model.eval()
    acc = (predict(model, x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def train(model, x, y, optimizer, epochs=3, bs=32):
    for epoch in range(epochs):
        for i in range(0, len(x), bs):
            logits = predict(model, x[i:i + bs])
            loss = F.cross_entropy(logits, y[i:i + bs])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, evaluate(model, x, y))


x = torch.randn(192, 10)
y = torch.randint(0, 3, (192,))
model = Net()
train(model, x, y, torch.optim.SGD(model.parameters(), lr=0.1))
