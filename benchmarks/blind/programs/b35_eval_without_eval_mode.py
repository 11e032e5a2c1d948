# CNN with dropout and batch norm; evaluation after each epoch under no_grad but still in train mode (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)

x_train, x_val = torch.randn(160, 1, 8, 8), torch.randn(64, 1, 8, 8)
y_train = (x_train.mean((1, 2, 3)) > 0).long()
y_val = (x_val.mean((1, 2, 3)) > 0).long()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.Flatten())
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(8 * 6 * 6, 2)

    def forward(self, x):
        return self.fc(self.drop(self.conv(x)))


model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(5):
    model.train()
    for i in range(0, 160, 32):
        optimizer.zero_grad()
        loss = criterion(model(x_train[i:i + 32]), y_train[i:i + 32])
        loss.backward()
        optimizer.step()

    with torch.no_grad():
        val_logits = model(x_val)
        val_loss = criterion(val_logits, y_val)
        val_acc = (val_logits.argmax(1) == y_val).float().mean()
    print(f"epoch {epoch} train {loss.item():.4f} val {val_loss.item():.4f} acc {val_acc.item():.3f}")
