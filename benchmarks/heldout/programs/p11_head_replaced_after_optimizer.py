# heldout: expect=GD106 line=29 alt_lines=31 static=no
# Fine-tuning: the optimizer is built from the pretrained model, then the head is replaced for 3 classes.
import torch
import torch.nn as nn

torch.manual_seed(0)


class SmallNet(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.features(x))


def build(pretrained=True):
    model = SmallNet(n_classes=10)
    if pretrained:
        # stands in for loading a checkpoint
        for p in model.parameters():
            nn.init.normal_(p, std=0.1)
    return model


model = build()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
# adapt to our 3-class problem
model.head = nn.Linear(32, 3)
criterion = nn.CrossEntropyLoss()

x = torch.randn(240, 16)
y = torch.randint(0, 3, (240,))
for epoch in range(4):
    for i in range(0, 240, 48):
        loss = criterion(model(x[i:i + 48]), y[i:i + 48])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
