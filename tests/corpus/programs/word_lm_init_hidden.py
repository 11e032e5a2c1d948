"""pytorch/examples word_language_model style: init_hidden from `weight.new_zeros`, repackaged state."""
import torch
from torch import nn

torch.manual_seed(0)


class RNNModel(nn.Module):
    def __init__(self, ntoken=50, ninp=16, nhid=32, nlayers=2):
        super().__init__()
        self.nhid, self.nlayers = nhid, nlayers
        self.drop = nn.Dropout(0.2)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, x, hidden):
        emb = self.drop(self.encoder(x))
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(self.drop(output)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    return h.detach() if isinstance(h, torch.Tensor) else tuple(repackage_hidden(v) for v in h)


model = RNNModel()
optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
data = torch.randint(0, 50, (400, 4))
for epoch in range(2):
    model.train()
    hidden = model.init_hidden(4)
    for i in range(0, 380, 20):
        x, y = data[i:i + 20], data[i + 1:i + 21]
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(x, hidden)
        loss = nn.functional.cross_entropy(output.view(-1, 50), y.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.3f}")
