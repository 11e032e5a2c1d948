# CNN classifier whose Sequential ends in nn.Softmax, trained with CrossEntropyLoss (2024 forum).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

N_CLASSES = 6
images = torch.randn(180, 3, 12, 12)
labels = torch.randint(0, N_CLASSES, (180,))
images += labels.view(-1, 1, 1, 1).float() * 0.3

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(32, N_CLASSES),
    nn.Softmax(dim=1),
)
loader = DataLoader(TensorDataset(images, labels), batch_size=30, shuffle=True)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for epoch in range(5):
    total, correct, running = 0, 0, 0.0
    for inputs, targets in loader:
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item() * inputs.size(0)
        correct += (outputs.argmax(1) == targets).sum().item()
        total += inputs.size(0)
    print(f"epoch {epoch + 1}: loss={running / total:.4f} acc={correct / total:.3f}")
