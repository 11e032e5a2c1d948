# Sentence-embedding training with in-batch negatives; the hand-written
# InfoNCE module returns one loss per anchor.
import torch
import torch.nn as nn
import torch.nn.functional as F


class MeanPoolEncoder(nn.Module):
    def __init__(self, vocab=500, d=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.proj = nn.Linear(d, d)

    def forward(self, ids):
        mask = (ids != 0).float().unsqueeze(-1)
        pooled = (self.emb(ids) * mask).sum(1) / mask.sum(1).clamp(min=1)
        return F.normalize(self.proj(pooled), dim=-1)


class InfoNCE(nn.Module):
    def __init__(self, temperature=0.05):
        super().__init__()
        self.t = temperature

    def forward(self, anchors, positives):
        sim = torch.exp(anchors @ positives.t() / self.t)
        pos = sim.diagonal()
        return -torch.log(pos / sim.sum(dim=1))


class PairTrainer:
    def __init__(self, encoder):
        self.encoder = encoder
        self.criterion = InfoNCE()
        self.opt = torch.optim.AdamW(encoder.parameters(), lr=2e-4)

    def step(self, queries, passages):
        loss = self.criterion(self.encoder(queries), self.encoder(passages))
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.detach().mean().item()


trainer = PairTrainer(MeanPoolEncoder())
for it in range(10):
    q = torch.randint(1, 500, (32, 12))
    p = torch.where(torch.rand(32, 12) < 0.7, q, torch.randint(1, 500, (32, 12)))
    print(it, trainer.step(q, p))
