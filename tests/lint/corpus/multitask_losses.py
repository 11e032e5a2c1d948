"""Multi-task model: losses of several heads summed in a loop, then one backward."""
import torch
import torch.nn as nn


class MultiTask(nn.Module):
    def __init__(self, tasks):
        super().__init__()
        self.shared = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
        self.heads = nn.ModuleDict({name: nn.Linear(64, n) for name, n in tasks.items()})

    def forward(self, x):
        h = self.shared(x)
        return {name: head(h) for name, head in self.heads.items()}


tasks = {"age": 10, "gender": 2, "emotion": 7}
model = MultiTask(tasks)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
weights = {"age": 1.0, "gender": 0.5, "emotion": 2.0}

for epoch in range(20):
    history = {name: 0.0 for name in tasks}
    for x, labels in loader:
        outputs = model(x)
        total = 0
        for name in tasks:
            task_loss = criterion(outputs[name], labels[name])
            total = total + weights[name] * task_loss
            history[name] += task_loss.item()
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
    print(epoch, {k: round(v / len(loader), 4) for k, v in history.items()})
