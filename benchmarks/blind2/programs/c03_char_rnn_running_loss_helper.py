# Character-level LSTM language model; the epoch total adds up what train_batch returns.
import torch
import torch.nn as nn

torch.manual_seed(0)
text = "hello world, this is a tiny corpus for a tiny language model. " * 20
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])


class CharLM(nn.Module):
    def __init__(self, vocab, hidden=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, 32)
        self.rnn = nn.LSTM(32, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)


def get_batch(seq_len=32, bs=16):
    ix = torch.randint(0, len(data) - seq_len - 1, (bs,))
    x = torch.stack([data[i:i + seq_len] for i in ix])
    y = torch.stack([data[i + 1:i + seq_len + 1] for i in ix])
    return x, y


model = CharLM(len(chars))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
criterion = nn.CrossEntropyLoss()


def train_batch(x, y):
    optimizer.zero_grad()
    logits = model(x)
    loss = criterion(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss


for epoch in range(3):
    epoch_loss = 0.0
    for _ in range(10):
        x, y = get_batch()
        epoch_loss += train_batch(x, y)
    print(f"epoch {epoch} loss {epoch_loss / 10:.4f}")
