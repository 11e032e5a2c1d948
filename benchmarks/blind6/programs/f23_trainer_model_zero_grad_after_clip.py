# Transformer encoder classifier trainer; gradient clipping is followed by a
# model.zero_grad() meant for the next step.
import torch
import torch.nn as nn
import torch.nn.functional as F


class SeqClassifier(nn.Module):
    def __init__(self, vocab=200, d=32, n_classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, nhead=4, dim_feedforward=64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.cls = nn.Linear(d, n_classes)

    def forward(self, ids):
        return self.cls(self.encoder(self.emb(ids)).mean(dim=1))


class Trainer:
    def __init__(self, model, max_norm=1.0):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01)
        self.max_norm = max_norm

    def step(self, ids, labels):
        self.model.train()
        loss = F.cross_entropy(self.model(ids), labels)
        loss.backward()
        grad_norm = nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        self.model.zero_grad()
        self.opt.step()
        return loss.item(), grad_norm.item()


trainer = Trainer(SeqClassifier())
for it in range(10):
    ids = torch.randint(0, 200, (16, 24))
    print(it, trainer.step(ids, torch.randint(0, 3, (16,))))
