# Fine-tuning a tiny transformer classifier with warmup; only the scheduler is stepped (2025 thread).
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import LambdaLR

torch.manual_seed(0)

VOCAB, D, SEQ, N_CLS = 50, 16, 8, 3


class TinyTransformerClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.zeros(1, SEQ, D))
        layer = nn.TransformerEncoderLayer(D, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Linear(D, N_CLS)

    def forward(self, ids):
        h = self.encoder(self.tok(ids) + self.pos)
        return self.head(h[:, 0])


ids = torch.randint(0, VOCAB, (96, SEQ))
labels = ids[:, 1] % N_CLS
model = TinyTransformerClassifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
total_steps, warmup = 18, 3
scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, 1 - s / total_steps))
loss_fct = nn.CrossEntropyLoss()

step = 0
for epoch in range(3):
    for i in range(0, 96, 16):
        logits = model(ids[i:i + 16])
        loss = loss_fct(logits.view(-1, N_CLS), labels[i:i + 16].view(-1))
        loss.backward()
        scheduler.step()
        optimizer.zero_grad()
        step += 1
    print(f"epoch {epoch} step {step} lr {scheduler.get_last_lr()[0]:.2e} loss {loss.item():.4f}")
