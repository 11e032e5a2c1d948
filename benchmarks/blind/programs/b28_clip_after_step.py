# Char-level LSTM language model; gradient clipping added after the optimizer step (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)

text = "hello world, hello torch, hello gradients. " * 8
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])
SEQ, BS = 16, 8


class CharLSTM(nn.Module):
    def __init__(self, vocab, emb=16, hidden=48):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, batch_first=True)
        self.proj = nn.Linear(hidden, vocab)

    def forward(self, x):
        out, _ = self.lstm(self.emb(x))
        return self.proj(out)


def get_batch():
    ix = torch.randint(0, len(data) - SEQ - 1, (BS,))
    x = torch.stack([data[i:i + SEQ] for i in ix])
    y = torch.stack([data[i + 1:i + SEQ + 1] for i in ix])
    return x, y


model = CharLSTM(len(chars))
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
criterion = nn.CrossEntropyLoss()

for it in range(30):
    x, y = get_batch()
    logits = model(x)
    loss = criterion(logits.reshape(-1, len(chars)), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    if it % 5 == 0:
        print(f"iter {it} loss {loss.item():.4f}")
