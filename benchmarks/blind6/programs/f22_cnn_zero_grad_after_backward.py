# Small CIFAR-like CNN, plain script; the three optimizer lines are in the wrong order.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


net = ConvNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
images = torch.randn(200, 3, 32, 32)
targets = torch.randint(0, 10, (200,))

for epoch in range(2):
    for i in range(0, 200, 20):
        outputs = net(images[i:i + 20])
        loss = criterion(outputs, targets[i:i + 20])
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
    print(f"epoch {epoch}: {loss.item():.3f}")
