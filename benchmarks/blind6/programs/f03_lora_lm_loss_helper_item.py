# Toy LoRA fine-tuning of a tiny language model. The loss helper returns
# .item() because it was first written for the evaluation loop.
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM, RANK = 100, 32, 4


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, rank=RANK, alpha=8):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        self.A = nn.Parameter(torch.randn(rank, base.in_features) * 0.01)
        self.B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scale = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.A.t() @ self.B.t()) * self.scale


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.proj = LoRALinear(nn.Linear(DIM, DIM))
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        return self.head(torch.tanh(self.proj(self.emb(ids))))


def lm_loss(model, ids):
    logits = model(ids[:, :-1])
    return F.cross_entropy(logits.reshape(-1, VOCAB), ids[:, 1:].reshape(-1)).item()


model = TinyLM()
for p in list(model.emb.parameters()) + list(model.head.parameters()):
    p.requires_grad_(False)
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)

data = torch.randint(0, VOCAB, (64, 17))
for step in range(10):
    batch = data[torch.randint(0, 64, (8,))]
    optimizer.zero_grad()
    loss = lm_loss(model, batch)
    loss.backward()
    optimizer.step()
    print(step, loss)
