# Intent classifier over bag-of-embeddings; forward returns probabilities "for inference" (2025).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, N_INTENTS = 80, 5


class IntentClassifier(nn.Module):
    def __init__(self, dim=24):
        super().__init__()
        self.embedding = nn.EmbeddingBag(VOCAB, dim, mode="mean")
        self.hidden = nn.Linear(dim, dim)
        self.classifier = nn.Linear(dim, N_INTENTS)

    def forward(self, ids):
        h = torch.tanh(self.hidden(self.embedding(ids)))
        logits = self.classifier(h)
        return F.softmax(logits, dim=-1)


def collate(n=32, length=6):
    intents = torch.randint(0, N_INTENTS, (n,))
    ids = (intents.unsqueeze(1) * 16 + torch.randint(0, 16, (n, length))) % VOCAB
    return ids, intents


model = IntentClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for step in range(40):
    ids, intents = collate()
    probs = model(ids)
    loss = F.cross_entropy(probs, intents)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        acc = (probs.argmax(-1) == intents).float().mean().item()
        print(f"step {step} loss {loss.item():.4f} acc {acc:.3f}")
