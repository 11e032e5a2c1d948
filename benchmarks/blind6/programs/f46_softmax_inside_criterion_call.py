# Handwritten-digit style classifier on random 8x8 images, plain script as in a
# forum question: softmax applied inside the CrossEntropyLoss call.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
images = torch.rand(600, 1, 8, 8)
labels = torch.randint(0, 10, (600,))


class DigitNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 16, 3, padding=1)
        self.fc1 = nn.Linear(16 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


net = DigitNet()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)

for epoch in range(5):
    for i in range(0, 600, 60):
        outputs = net(images[i:i + 60])
        loss = criterion(F.softmax(outputs, dim=1), labels[i:i + 60])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
