"""Text classification with an embedding bag and dropout; validation every epoch under inference_mode."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassifier(nn.Module):
    def __init__(self, vocab=200, dim=32, classes=4):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab, dim)
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(dim, classes)

    def forward(self, text, offsets):
        return self.fc(self.dropout(self.embedding(text, offsets)))


def batches(n):
    for _ in range(n):
        text = torch.randint(0, 200, (40,))
        offsets = torch.arange(0, 40, 10)
        yield text, offsets, torch.randint(0, 4, (4,))


model = TextClassifier()
optimizer = torch.optim.SGD(model.parameters(), lr=4.0)
for epoch in range(2):
    model.train()
    for text, offsets, label in batches(3):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(text, offsets), label)
        loss.backward()
        optimizer.step()
    correct = total = 0
    with torch.inference_mode():
        for text, offsets, label in batches(2):
            correct += (model(text, offsets).argmax(1) == label).sum().item()
            total += label.numel()
    print(epoch, correct / total)
