# heldout: expect=GD501 line=19 alt_lines=27 static=yes
# The model returns softmax probabilities and the loop uses CrossEntropyLoss on them.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, d_in=16, n_classes=5):
        super().__init__()
        self.fc1 = nn.Linear(d_in, 64)
        self.fc2 = nn.Linear(64, n_classes)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return F.softmax(self.fc2(x), dim=1)


def train(model, loader, optimizer, criterion, epochs=3):
    for epoch in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            probs = model(xb)
            loss = criterion(probs, yb)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


X = torch.randn(400, 16)
Y = X[:, :5].argmax(1)
loader = DataLoader(TensorDataset(X, Y), batch_size=40, shuffle=True)
model = MLP()
train(model, loader, torch.optim.Adam(model.parameters(), lr=1e-3), nn.CrossEntropyLoss())
