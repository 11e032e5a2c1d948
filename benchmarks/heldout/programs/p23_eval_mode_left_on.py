# heldout: expect=GD208 line=40 alt_lines=23,34 static=no
# model.train() is called once before the epoch loop; evaluate() leaves the model in eval mode.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(64, 3),
        )

    def forward(self, x):
        return self.net(x)


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


x_train, y_train = torch.randn(300, 20), torch.randint(0, 3, (300,))
x_val, y_val = torch.randn(60, 20), torch.randint(0, 3, (60,))
model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

model.train()
for epoch in range(4):
    for i in range(0, 300, 50):
        optimizer.zero_grad()
        loss = criterion(model(x_train[i:i + 50]), y_train[i:i + 50])
        loss.backward()
        optimizer.step()
    print(epoch, loss.item(), evaluate(model, x_val, y_val))
