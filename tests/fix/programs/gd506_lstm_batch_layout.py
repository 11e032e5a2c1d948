"""Sequence classification: is the running sum of a sequence positive at its end?

The LSTM is built without batch_first, but the batches are (batch, time, feature),
as the dataset yields them: the LSTM reads the batch as time steps.
"""

import torch
from torch import nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=1, hidden_size=32)
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1, :])


seqs = torch.randn(512, 12, 1)
labels = (seqs.sum(dim=(1, 2)) > 0).long()
model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(6):
    for i in range(0, 512, 64):
        x, y = seqs[i:i + 64], labels[i:i + 64]
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
