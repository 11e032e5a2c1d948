"""Seq2seq with teacher forcing; the decoder loop is shared with greedy decoding."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Translator(nn.Module):
    def __init__(self, vocab=16, hidden=24):
        super().__init__()
        self.src_embed = nn.Embedding(vocab, hidden)
        self.tgt_embed = nn.Embedding(vocab, hidden)
        self.encoder = nn.LSTM(hidden, hidden, batch_first=True)
        self.decoder = nn.LSTMCell(hidden, hidden)
        self.proj = nn.Linear(hidden, vocab)

    def encode(self, src):
        _, (h, c) = self.encoder(self.src_embed(src))
        return h[0], c[0]

    @torch.no_grad()
    def decode(self, state, inputs):
        h, c = state
        outs = []
        for t in range(inputs.size(1)):
            h, c = self.decoder(self.tgt_embed(inputs[:, t]), (h, c))
            outs.append(self.proj(h))
        return torch.stack(outs, 1)


model = Translator()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    src = torch.randint(0, 16, (4, 9))
    tgt = torch.randint(0, 16, (4, 7))
    logits = model.decode(model.encode(src), tgt[:, :-1])
    loss = F.cross_entropy(logits.transpose(1, 2), tgt[:, 1:])
    opt.zero_grad()
    loss.backward()
    opt.step()
