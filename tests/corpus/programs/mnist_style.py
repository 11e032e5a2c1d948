"""The classic MNIST example's shape: CNN, dropout, train/test functions, StepLR per epoch."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout = nn.Dropout(0.25)
        self.fc = nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = self.dropout(torch.flatten(x, 1))
        return torch.log_softmax(self.fc(x), dim=1)


def train(model, loader, optimizer):
    model.train()
    for data, target in loader:
        optimizer.zero_grad()
        loss = nn.functional.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()


def test(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            correct += model(data).argmax(dim=1).eq(target).sum().item()
    return correct


images = torch.randn(256, 1, 14, 14)
labels = (images.mean(dim=(1, 2, 3)) > 0).long()
loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)
model = Net()
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(3):
    train(model, loader, optimizer)
    test(model, loader)
    scheduler.step()
