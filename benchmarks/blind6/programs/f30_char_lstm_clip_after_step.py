# Character-level LSTM language model with truncated BPTT; the gradient
# clipping line comes after the optimizer step.
import torch
import torch.nn as nn

text = "hello world, this is a tiny corpus for a character model. " * 20
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])


class CharLSTM(nn.Module):
    def __init__(self, n, d=64):
        super().__init__()
        self.emb = nn.Embedding(n, d)
        self.lstm = nn.LSTM(d, d, num_layers=2, batch_first=True)
        self.out = nn.Linear(d, n)

    def forward(self, x, state=None):
        y, state = self.lstm(self.emb(x), state)
        return self.out(y), state


model = CharLSTM(len(chars))
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()
seq_len, batch = 32, 8

for it in range(30):
    starts = torch.randint(0, len(data) - seq_len - 1, (batch,))
    x = torch.stack([data[s:s + seq_len] for s in starts])
    y = torch.stack([data[s + 1:s + seq_len + 1] for s in starts])
    logits, _ = model(x)
    loss = criterion(logits.reshape(-1, len(chars)), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    if it % 10 == 0:
        print(it, loss.item())
