"""The PyTorch seq2seq translation tutorial's shape: an encoder and an attention-free decoder with
dropout, trained with two optimizers; `evaluate()` runs the models under no_grad and its caller,
the script, switches both to eval mode before `evaluate_randomly()`."""
import random

import torch
from torch import nn

torch.manual_seed(0)
random.seed(0)
SOS, EOS, vocab, hidden_size, max_len = 0, 1, 12, 32, 6


class EncoderRNN(nn.Module):
    def __init__(self, dropout_p=0.1):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        return self.gru(self.dropout(self.embedding(input)))


class DecoderRNN(nn.Module):
    def __init__(self, dropout_p=0.1):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)
        self.out = nn.Linear(hidden_size, vocab)

    def forward(self, hidden, target=None):
        batch = hidden.shape[1]
        inp = torch.full((batch, 1), SOS, dtype=torch.long)
        outputs = []
        for i in range(max_len):
            out, hidden = self.gru(self.dropout(self.embedding(inp)), hidden)
            logits = self.out(out)
            outputs.append(logits)
            inp = target[:, i:i + 1] if target is not None else logits.argmax(-1).detach()
        return torch.cat(outputs, dim=1)


def pairs(n):
    src = torch.randint(2, vocab, (n, max_len))
    return src, src.flip(1)


def evaluate(encoder, decoder, src, tgt):
    with torch.no_grad():
        _, encoder_hidden = encoder(src)
        decoder_outputs = decoder(encoder_hidden)
        decoded = decoder_outputs.argmax(-1)
    return (decoded == tgt).float().mean().item()


def evaluate_randomly(n=16):
    src, tgt = pairs(n)
    print(f"token accuracy {evaluate(encoder, decoder, src, tgt):.2f}")


encoder = EncoderRNN()
decoder = DecoderRNN()
encoder_optimizer = torch.optim.Adam(encoder.parameters(), lr=3e-3)
decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()
for epoch in range(1, 31):
    src, tgt = pairs(32)
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    _, encoder_hidden = encoder(src)
    decoder_outputs = decoder(encoder_hidden, tgt)
    loss = criterion(decoder_outputs.reshape(-1, vocab), tgt.reshape(-1))
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss {loss.item():.3f}")

encoder.eval()
decoder.eval()
evaluate_randomly()
