# Word-level GRU language model; evaluate() calls eval() but forgets no_grad, and sums the
# loss tensors weighted by batch size.
import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB = 100


class GRULM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32)
        self.gru = nn.GRU(32, 64, batch_first=True)
        self.drop = nn.Dropout(0.2)
        self.out = nn.Linear(64, VOCAB)

    def forward(self, x):
        h, _ = self.gru(self.drop(self.emb(x)))
        return self.out(self.drop(h))


model = GRULM()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
train_data = [torch.randint(0, VOCAB, (8, 21)) for _ in range(10)]
val_data = [torch.randint(0, VOCAB, (8, 21)) for _ in range(4)]


def evaluate(batches):
    model.eval()
    total_loss, total_count = 0.0, 0
    for seq in batches:
        logits = model(seq[:, :-1])
        loss = criterion(logits.reshape(-1, VOCAB), seq[:, 1:].reshape(-1))
        total_loss += loss * seq.size(0)
        total_count += seq.size(0)
    return total_loss / total_count


for epoch in range(3):
    model.train()
    for seq in train_data:
        logits = model(seq[:, :-1])
        loss = criterion(logits.reshape(-1, VOCAB), seq[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} val ppl {torch.exp(evaluate(val_data)).item():.1f}")
