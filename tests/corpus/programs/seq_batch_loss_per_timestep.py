"""A character-level sequence tagger trained as the PyTorch seq2seq tutorial does: the loss of each
time step is added to `batch_loss` inside one batch, and backpropagated once per batch."""
import torch
from torch import nn

torch.manual_seed(0)
vocab, hidden, seq_len, batch = 20, 32, 12, 16


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, token, h):
        h = self.cell(self.embed(token), h)
        return self.out(h), h


def make_batch():
    src = torch.randint(0, vocab, (batch, seq_len))
    return src, (src + 1) % vocab


model = Tagger()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()

for step in range(40):
    src, tgt = make_batch()
    h = torch.zeros(batch, hidden)
    optimizer.zero_grad()
    batch_loss = 0
    for t in range(seq_len):
        logits, h = model(src[:, t], h)
        loss = criterion(logits, tgt[:, t])
        batch_loss += loss
    batch_loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step}: loss {batch_loss.item() / seq_len:.3f}")
