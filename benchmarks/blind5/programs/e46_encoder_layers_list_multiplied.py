"""Transformer encoder for sequence classification, layers stacked by hand from a config."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


@dataclass
class ModelConfig:
    vocab: int = 100
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 4
    ff: int = 64
    classes: int = 3


class EncoderClassifier(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab, cfg.d_model)
        layers = [nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, cfg.ff, dropout=0.1,
                                             batch_first=True)] * cfg.n_layers
        self.layers = nn.ModuleList(layers)
        self.norm = nn.LayerNorm(cfg.d_model)
        self.cls = nn.Linear(cfg.d_model, cfg.classes)

    def forward(self, ids, pad_mask=None):
        h = self.embed(ids)
        for layer in self.layers:
            h = layer(h, src_key_padding_mask=pad_mask)
        return self.cls(self.norm(h).mean(1))


cfg = ModelConfig()
model = EncoderClassifier(cfg)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
ids = torch.randint(0, cfg.vocab, (128, 10))
labels = ids.max(1).values % cfg.classes
for epoch in range(3):
    for i in range(0, 128, 32):
        loss = F.cross_entropy(model(ids[i:i + 32]), labels[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 4))
