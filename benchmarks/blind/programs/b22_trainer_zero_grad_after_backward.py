# A small Trainer class for a GRU sentiment model; train_step reordered during a refactor (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)


class SentimentGRU(nn.Module):
    def __init__(self, vocab=60, emb=16, hidden=24):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.gru = nn.GRU(emb, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, ids):
        _, h = self.gru(self.emb(ids))
        return self.fc(h[-1]).squeeze(-1)


class Trainer:
    def __init__(self, model, lr=1e-2):
        self.model = model
        self.loss_fn = nn.BCEWithLogitsLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train_step(self, ids, target):
        self.model.train()
        logits = self.model(ids)
        loss = self.loss_fn(logits, target)
        loss.backward()
        self.optimizer.zero_grad()
        self.optimizer.step()
        return loss.detach()

    def fit(self, ids, target, epochs=6, bs=16):
        for epoch in range(epochs):
            losses = [self.train_step(ids[i:i + bs], target[i:i + bs]) for i in range(0, len(ids), bs)]
            print(f"epoch {epoch} loss {torch.stack(losses).mean().item():.4f}")


ids = torch.randint(0, 60, (96, 7))
target = (ids < 30).float().mean(1).round()
Trainer(SentimentGRU()).fit(ids, target)
