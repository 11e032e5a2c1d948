"""A GRU seq2seq model with teacher forcing and a stack of decoder cells."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2Seq(nn.Module):
    def __init__(self, vocab=20, hidden=32, n_dec=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.dec_cells = [nn.GRUCell(hidden, hidden) for _ in range(n_dec)]
        self.out = nn.Linear(hidden, vocab)

    def forward(self, src, tgt, teacher_forcing=0.5):
        _, h = self.encoder(self.embed(src))
        hs = [h[0] for _ in self.dec_cells]
        inp = tgt[:, 0]
        logits = []
        for t in range(1, tgt.size(1)):
            x = self.embed(inp)
            for i, cell in enumerate(self.dec_cells):
                hs[i] = cell(x, hs[i])
                x = hs[i]
            step_logits = self.out(x)
            logits.append(step_logits)
            inp = tgt[:, t] if random.random() < teacher_forcing else step_logits.argmax(-1)
        return torch.stack(logits, 1)


model = Seq2Seq()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(3):
    src = torch.randint(0, 20, (4, 7))
    tgt = torch.randint(0, 20, (4, 6))
    logits = model(src, tgt)
    loss = F.cross_entropy(logits.reshape(-1, 20), tgt[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
