"""A sequence tagger: logits are flattened over time, the tags are not."""
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab=50, tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16)
        self.rnn = nn.GRU(16, 32, batch_first=True)
        self.out = nn.Linear(32, tags)

    def forward(self, tokens):
        h, _ = self.rnn(self.embed(tokens))
        return self.out(h)


model = Tagger()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for _ in range(3):
    tokens = torch.randint(0, 50, (8, 12))
    tags = torch.randint(0, 5, (8, 12))
    logits = model(tokens)
    loss = criterion(logits.view(-1, 5), tags)  # raises
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
