"""Word-level RNN language model with truncated BPTT and gradient clipping."""
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_


class RNNModel(nn.Module):
    def __init__(self, ntoken=40, ninp=16, nhid=32):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, inp, hidden):
        out, hidden = self.rnn(self.encoder(inp), hidden)
        return self.decoder(out), hidden


def repackage(h):
    return tuple(v.detach() for v in h)


class LMTrainer:
    def __init__(self, model, clip=0.25, lr=1.0):
        self.model, self.clip = model, clip
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def step(self, data, targets, hidden):
        hidden = repackage(hidden)
        self.optimizer.zero_grad()
        output, hidden = self.model(data, hidden)
        loss = self.criterion(output.view(-1, output.size(-1)), targets.view(-1))
        clip_grad_norm_(self.model.parameters(), self.clip)
        loss.backward()
        self.optimizer.step()
        return loss.item(), hidden


model = RNNModel()
trainer = LMTrainer(model)
stream = torch.randint(0, 40, (41, 4))
hidden = (torch.zeros(1, 4, 32), torch.zeros(1, 4, 32))
for i in range(0, 40, 10):
    loss, hidden = trainer.step(stream[i:i + 10], stream[i + 1:i + 11], hidden)
