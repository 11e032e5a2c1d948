"""A bag-of-words classifier whose padding id was appended after the embedding was sized."""
import torch
from torch import nn

vocab = {w: i for i, w in enumerate("the a cat dog sat ran on mat".split())}
PAD = len(vocab)


class BagOfWords(nn.Module):
    def __init__(self, n_words):
        super().__init__()
        self.embed = nn.Embedding(n_words, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, ids):
        return self.out(self.embed(ids).mean(1))  # raises


model = BagOfWords(len(vocab))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
batch = torch.tensor([[0, 2, 4, PAD], [1, 3, 5, 6]])
labels = torch.tensor([0, 1])
for _ in range(3):
    loss = nn.functional.cross_entropy(model(batch), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
