# Per-sample losses (reduction='none') weighted by sample importance, then
# reduced in a helper before backward; per-token seq loss masked and averaged.
import torch
import torch.nn as nn
import torch.nn.functional as F


def weighted_mean(per_sample, weights):
    return (per_sample * weights).sum() / weights.sum()


class Tagger(nn.Module):
    def __init__(self, vocab=120, n_tags=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, 32, batch_first=True)
        self.out = nn.Linear(32, n_tags)

    def forward(self, ids):
        return self.out(self.rnn(self.emb(ids))[0])


model = Tagger()
criterion = nn.CrossEntropyLoss(reduction="none")
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(10):
    ids, tags = torch.randint(1, 120, (8, 16)), torch.randint(0, 6, (8, 16))
    mask = (torch.rand(8, 16) > 0.2).float()
    tok = criterion(model(ids).transpose(1, 2), tags)
    seq_loss = (tok * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
    loss = weighted_mean(seq_loss, torch.rand(8) + 0.5)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, loss.item())
