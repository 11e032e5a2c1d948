"""Trainer class for a multi-label text-ish classifier (bag of embeddings), with config dataclass."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TrainConfig:
    vocab: int = 200
    n_labels: int = 6
    lr: float = 2e-3
    epochs: int = 2
    batch_size: int = 32
    max_grad_norm: float = 1.0


class BagClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.EmbeddingBag(cfg.vocab, 64, mode="mean")
        self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(64, cfg.n_labels))

    def forward(self, tokens):
        return self.head(self.emb(tokens))


class Trainer:
    def __init__(self, model, cfg):
        self.model, self.cfg = model, cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        self.loss_fn = nn.BCEWithLogitsLoss()

    def training_step(self, tokens, labels):
        logits = self.model(tokens)
        loss = self.loss_fn(logits, labels)
        loss.backward()
        self.optimizer.zero_grad(set_to_none=True)
        nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_grad_norm)
        self.optimizer.step()
        return loss.detach()

    def train(self, tokens, labels):
        self.model.train()
        for epoch in range(self.cfg.epochs):
            losses = []
            for i in range(0, len(tokens), self.cfg.batch_size):
                losses.append(self.training_step(tokens[i:i + self.cfg.batch_size], labels[i:i + self.cfg.batch_size]))
            print(epoch, torch.stack(losses).mean().item())


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = TrainConfig()
    tokens = torch.randint(0, cfg.vocab, (256, 20))
    labels = torch.stack([(tokens % (k + 2) == 0).float().mean(1) > 0.3 for k in range(cfg.n_labels)], 1).float()
    Trainer(BagClassifier(cfg), cfg).train(tokens, labels)
