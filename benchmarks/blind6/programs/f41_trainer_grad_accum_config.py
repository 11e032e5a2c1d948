# Trainer with a config-driven accumulation count (SGD + Nesterov) for a
# tagging model; the micro-batch loss is not divided by the count.
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    grad_accum: int = 8
    lr: float = 0.05
    n_tags: int = 9
    vocab: int = 300


class Tagger(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg.vocab, 48)
        self.rnn = nn.LSTM(48, 48, batch_first=True, bidirectional=True)
        self.out = nn.Linear(96, cfg.n_tags)

    def forward(self, tokens):
        return self.out(self.rnn(self.emb(tokens))[0])


class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9, nesterov=True)

    def train_epoch(self, batches):
        self.model.train()
        for step, (tokens, tags) in enumerate(batches):
            logits = self.model(tokens)
            loss = F.cross_entropy(logits.reshape(-1, self.cfg.n_tags), tags.reshape(-1))
            loss.backward()
            if (step + 1) % self.cfg.grad_accum == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
        return loss.item()


cfg = Config()
batches = [(torch.randint(0, cfg.vocab, (4, 20)), torch.randint(0, cfg.n_tags, (4, 20))) for _ in range(32)]
trainer = Trainer(Tagger(cfg), cfg)
for epoch in range(2):
    print(epoch, trainer.train_epoch(batches))
