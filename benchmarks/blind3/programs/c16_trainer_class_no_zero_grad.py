"""A small Trainer class for a character-level LSTM language model."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class CharLM(nn.Module):
    def __init__(self, vocab=30, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x):
        out, _ = self.lstm(self.embed(x))
        return self.head(out)


class Trainer:
    def __init__(self, model, lr=2e-3):
        self.model = model
        self.optim = torch.optim.Adam(model.parameters(), lr=lr)

    def loss_on(self, batch):
        logits = self.model(batch[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), batch[:, 1:].reshape(-1))

    def train_epoch(self, batches):
        self.model.train()
        for batch in batches:
            loss = self.loss_on(batch)
            loss.backward()
            self.optim.step()


trainer = Trainer(CharLM())
corpus = [torch.randint(0, 30, (4, 17)) for _ in range(3)]
for epoch in range(2):
    trainer.train_epoch(corpus)
