# Image classifier with StepLR, plain script; scheduler.step() sits in the batch loop.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 16 * 16, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 10))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)

dataset = TensorDataset(torch.randn(1600, 3, 16, 16), torch.randint(0, 10, (1600,)))
loader = DataLoader(dataset, batch_size=32, shuffle=True)

for epoch in range(3):
    model.train()
    correct = 0
    for inputs, targets in loader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        scheduler.step()
        correct += (outputs.argmax(1) == targets).sum().item()
    print(f"epoch {epoch} acc {correct / len(dataset):.3f} lr {scheduler.get_last_lr()[0]:.2e}")
