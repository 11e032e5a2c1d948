# Gradient accumulation to fit a larger effective batch on a small GPU, plain
# script with SGD; each micro-batch mean loss is backpropagated as it is.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

accumulation_steps = 4
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 8))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loader = DataLoader(TensorDataset(torch.randn(1024, 64), torch.randint(0, 8, (1024,))), batch_size=16,
                    shuffle=True)

model.train()
optimizer.zero_grad()
for epoch in range(2):
    for i, (inputs, labels) in enumerate(loader):
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    print(f"epoch {epoch}: last micro-batch loss {loss.item():.4f}")
