"""GD211: the test pass of an MNIST-style classifier runs without `model.eval()`: dropout on, batch norm fed test data."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
images = torch.randn(384, 1, 8, 8)
labels = (images[:, 0, :4].mean(dim=(1, 2)) > 0).long()
train_loader = DataLoader(TensorDataset(images[:256], labels[:256]), batch_size=32, shuffle=True)
test_loader = DataLoader(TensorDataset(images[256:], labels[256:]), batch_size=64)

model = nn.Sequential(
    nn.Flatten(), nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 2),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(2):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    correct = 0
    with torch.no_grad():  # the test pass: no model.eval() before it
        for x, y in test_loader:
            correct += (model(x).argmax(dim=1) == y).sum().item()  # expect: GD211
    print(f"epoch {epoch}: test accuracy {correct / 128:.2f}")
