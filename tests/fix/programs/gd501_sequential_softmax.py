"""A tabular classifier built as one nn.Sequential that ends in nn.Softmax "to output probabilities", trained
with CrossEntropyLoss, which applies log-softmax itself: the gradients are squashed and learning crawls."""
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(300, 12)
y = x[:, :4].argmax(1)
model = nn.Sequential(
    nn.Linear(12, 32),
    nn.ReLU(),
    nn.Linear(32, 4),
    nn.Softmax(dim=1),
)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(10):
    for i in range(0, 300, 50):
        loss = criterion(model(x[i:i + 50]), y[i:i + 50])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    accuracy = (model(x).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch}: loss {loss.item():.3f} accuracy {accuracy:.3f}")
