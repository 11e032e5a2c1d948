"""Adapter tuning of a small pretrained-style encoder: frozen embeddings and attention, trainable
feed-forward adapters, activation checkpointing per layer to save memory. The first layer's input
comes from the frozen embedding, so the reentrant checkpoint gives the adapters no gradient."""
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint


class Adapter(nn.Module):
    def __init__(self, d, bottleneck=8):
        super().__init__()
        self.down = nn.Linear(d, bottleneck)
        self.up = nn.Linear(bottleneck, d)

    def forward(self, x):
        return x + self.up(F.gelu(self.down(x)))


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, 4, batch_first=True)
        self.norm = nn.LayerNorm(d)
        self.adapter = Adapter(d)

    def forward(self, x):
        a, _ = self.attn(x, x, x, need_weights=False)
        return self.adapter(self.norm(x + a))


class Encoder(nn.Module):
    def __init__(self, vocab=100, d=32, layers=2, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(Layer(d) for _ in range(layers))
        self.classifier = nn.Linear(d, classes)

    def forward(self, ids):
        h = self.embed(ids)
        for layer in self.layers:
            h = checkpoint(layer, h, use_reentrant=True)
        return self.classifier(h.mean(dim=1))


torch.manual_seed(0)
model = Encoder()
for name, p in model.named_parameters():
    p.requires_grad_("adapter" in name or "classifier" in name)
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
ids = torch.randint(0, 100, (64, 12))
labels = (ids[:, 0] % 3)
for epoch in range(6):
    for i in range(0, 64, 16):
        loss = F.cross_entropy(model(ids[i:i + 16]), labels[i:i + 16])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
