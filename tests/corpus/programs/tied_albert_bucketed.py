"""A tiny ALBERT-style sequence classifier: one encoder layer applied several times, input embedding
tied to the output projection of an auxiliary language-model head, and batches bucketed by length
(sorted by length, not by class) as torchtext's BucketIterator does."""
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
VOCAB, WIDTH = 100, 32


class Albert(nn.Module):
    def __init__(self, depth=3):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.layer = nn.TransformerEncoderLayer(WIDTH, 4, 64, dropout=0.0, batch_first=True)
        self.depth = depth
        self.lm_head = nn.Linear(WIDTH, VOCAB, bias=False)
        self.lm_head.weight = self.embed.weight  # weight tying
        self.cls = nn.Linear(WIDTH, 2)

    def forward(self, ids):
        h = self.embed(ids)
        for _ in range(self.depth):
            h = self.layer(h)  # the same layer, on purpose
        return self.cls(h.mean(1)), self.lm_head(h)


sequences = [torch.randint(1, VOCAB, (int(n),)) for n in torch.randint(4, 24, (192,))]
labels = torch.tensor([int(s.sum()) % 2 for s in sequences])
order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))  # bucket by length
batches = [order[i:i + 16] for i in range(0, len(order), 16)]

model = Albert()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(2):
    for batch in batches:
        ids = nn.utils.rnn.pad_sequence([sequences[i] for i in batch], batch_first=True)
        logits, lm = model(ids)
        loss = F.cross_entropy(logits, labels[batch]) + 0.1 * F.cross_entropy(
            lm[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
