# Per-sample scoring loop for a ranking model; scores collected and re-wrapped with torch.tensor (2024).
import torch
import torch.nn as nn

torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self, d=10):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(d, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, item):
        return self.mlp(item).squeeze(-1)


def listwise_loss(scores, relevance):
    return -(torch.softmax(relevance, 0) * torch.log_softmax(scores, 0)).sum()


queries = [(torch.randn(8, 10), torch.rand(8)) for _ in range(12)]
model = Scorer()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

for epoch in range(4):
    total = 0.0
    for items, relevance in queries:
        scores = torch.tensor([model(item) for item in items])
        loss = listwise_loss(scores, relevance)
        optimizer.zero_grad()
        loss.requires_grad_(True)
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch} listwise loss {total / len(queries):.4f}")
