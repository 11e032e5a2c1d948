# heldout: expect=GD107 line=39 alt_lines=- static=no
# Character-level LSTM language model with truncated BPTT; the hidden state is carried without detach.
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
        self.hidden_size = hidden

    def init_hidden(self, batch):
        return (torch.zeros(1, batch, self.hidden_size), torch.zeros(1, batch, self.hidden_size))

    def forward(self, x, hidden):
        out, hidden = self.lstm(self.embed(x), hidden)
        return self.fc(out), hidden


def get_batch(data, i):
    return data[:, i:i + SEQ], data[:, i + 1:i + 1 + SEQ]


data = torch.randint(0, VOCAB, (BATCH, 200))
model = CharLM()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.CrossEntropyLoss()

hidden = model.init_hidden(BATCH)
for i in range(0, data.size(1) - SEQ - 1, SEQ):
    x, y = get_batch(data, i)
    output, hidden = model(x, hidden)
    loss = criterion(output.reshape(-1, VOCAB), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(loss.item())
