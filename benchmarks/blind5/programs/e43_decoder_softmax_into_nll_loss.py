"""Character-level GRU decoder trained with NLLLoss (teacher forcing) on a reversal task."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, SOS = 12, 0


class Decoder(nn.Module):
    def __init__(self, vocab=VOCAB, hidden=32):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens, hidden):
        output, hidden = self.gru(F.relu(self.embedding(tokens)), hidden)
        return F.softmax(self.out(output), dim=-1), hidden


class Encoder(nn.Module):
    def __init__(self, vocab=VOCAB, hidden=32):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, src):
        _, hidden = self.gru(self.embedding(src))
        return hidden


encoder, decoder = Encoder(), Decoder()
criterion = nn.NLLLoss()
params = list(encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=3e-3)


def train_batch(src, tgt):
    hidden = encoder(src)
    dec_in = torch.cat([torch.full((src.shape[0], 1), SOS), tgt[:, :-1]], 1)
    scores, _ = decoder(dec_in, hidden)
    loss = criterion(scores.reshape(-1, VOCAB), tgt.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


for it in range(40):
    src = torch.randint(1, VOCAB, (32, 7))
    loss = train_batch(src, src.flip(1))
    if it % 10 == 0:
        print(it, round(loss, 4))
