"""A tiny next-token model: the per-token loss (reduction='none') is masked for padding, then backpropagated
as a vector: backward() needs a scalar."""
import torch
from torch import nn

torch.manual_seed(0)
VOCAB, SEQ = 12, 10


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 24)
        self.rnn = nn.GRU(24, 32, batch_first=True)
        self.out = nn.Linear(32, VOCAB)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return self.out(h)


model = TinyLM()
criterion = nn.CrossEntropyLoss(reduction="none")
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
base = torch.arange(SEQ) % VOCAB

for step in range(40):
    ids = (base[None, :] + torch.randint(0, VOCAB, (16, 1))) % VOCAB
    lengths = torch.randint(5, SEQ + 1, (16,))
    mask = (torch.arange(SEQ - 1)[None, :] < (lengths[:, None] - 1)).float()
    logits = model(ids[:, :-1])
    loss = criterion(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1))
    loss = loss * mask.reshape(-1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 10 == 0:
        print(f"step {step}: loss {(loss.sum() / mask.sum()).item():.3f}")
