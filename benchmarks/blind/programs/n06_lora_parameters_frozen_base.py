# Correct: hand-rolled LoRA with nn.Parameter adapters on a frozen base.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8):
        super().__init__()
        self.base = base
        self.scaling = alpha / r
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) / math.sqrt(base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


class TinyBlock(nn.Module):
    def __init__(self, d=16, vocab=40, n_cls=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.ff = nn.Linear(d, d)
        self.cls = nn.Linear(d, n_cls)

    def forward(self, ids):
        h = self.emb(ids)
        h = h + F.gelu(self.ff(h))
        return self.cls(h.mean(1))


model = TinyBlock()
for p in model.parameters():
    p.requires_grad = False
model.ff = LoRALinear(model.ff)
model.cls.weight.requires_grad = True
model.cls.bias.requires_grad = True

ids = torch.randint(0, 40, (64, 8))
labels = (ids[:, 0] < 20).long()
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-3)
for epoch in range(5):
    for i in range(0, 64, 16):
        loss = F.cross_entropy(model(ids[i:i + 16]), labels[i:i + 16])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
