"""BERT-like fine-tuning loop with linear warm-up then linear decay (LambdaLR)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def linear_warmup_decay(warmup, total):
    def fn(step):
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))
    return fn


class SentenceClassifier(nn.Module):
    def __init__(self, vocab=200, d=32, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.cls = nn.Linear(d, classes)

    def forward(self, ids):
        return self.cls(self.enc(self.emb(ids)).mean(1))


ids = torch.randint(0, 200, (240, 12))
labels = (ids[:, :3].sum(1) % 3)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(ids, labels), batch_size=16, shuffle=True)
model = SentenceClassifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01)
epochs = 2
total_steps = epochs * len(loader)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, linear_warmup_decay(total_steps // 10, total_steps))

for epoch in range(epochs):
    model.train()
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        scheduler.step()
        optimizer.step()
        optimizer.zero_grad()
        if step % 5 == 0:
            print(epoch, step, round(loss.item(), 4), scheduler.get_last_lr()[0])
