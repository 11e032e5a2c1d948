"""Word-language-model style truncated BPTT: the hidden state is detached every batch."""
import torch
from torch import nn

torch.manual_seed(0)
vocab, emb, hid = 50, 16, 32


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hid, batch_first=True)
        self.out = nn.Linear(hid, vocab)

    def forward(self, tokens, state):
        h, state = self.rnn(self.embed(tokens), state)
        return self.out(h), state


def repackage(state):
    return tuple(s.detach() for s in state)


model = LM()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
data = torch.randint(0, vocab, (4, 200))
state = (torch.zeros(1, 4, hid), torch.zeros(1, 4, hid))
for i in range(0, 180, 20):
    inputs, targets = data[:, i:i + 20], data[:, i + 1:i + 21]
    state = repackage(state)
    model.zero_grad()
    logits, state = model(inputs, state)
    loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
