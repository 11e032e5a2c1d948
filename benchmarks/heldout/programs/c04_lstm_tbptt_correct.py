# heldout: expect=none
# Correct truncated BPTT: hidden state detached element-wise between chunks, batch_first=True.
import torch
import torch.nn as nn

torch.manual_seed(0)

VOCAB, SEQ, BATCH = 20, 10, 4


class CharLM(nn.Module):
    def __init__(self, vocab=VOCAB, emb=16, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, vocab)

    def forward(self, x, hidden=None):
        out, hidden = self.lstm(self.embed(x), hidden)
        return self.fc(out), hidden


base = torch.arange(200) % VOCAB
data = torch.stack([torch.roll(base, k) for k in range(BATCH)])
model = CharLM()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.CrossEntropyLoss()

for epoch in range(2):
    hidden = None
    for i in range(0, data.size(1) - SEQ - 1, SEQ):
        x, y = data[:, i:i + SEQ], data[:, i + 1:i + 1 + SEQ]
        if hidden is not None:
            hidden = tuple(h.detach() for h in hidden)
        output, hidden = model(x, hidden)
        loss = criterion(output.reshape(-1, VOCAB), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
    print(epoch, loss.item())
