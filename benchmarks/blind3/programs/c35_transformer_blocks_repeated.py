"""A small transformer encoder classifier built from a config."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg["vocab"], cfg["d"])
        layer = Block(cfg["d"], cfg["heads"])
        self.layers = nn.ModuleList([layer for _ in range(cfg["n_layers"])])
        self.cls = nn.Linear(cfg["d"], cfg["classes"])

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x)
        return self.cls(x.mean(1))


cfg = {"vocab": 50, "d": 16, "heads": 2, "n_layers": 3, "classes": 2}
model = Encoder(cfg)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for it in range(3):
    ids, y = torch.randint(0, 50, (4, 9)), torch.randint(0, 2, (4,))
    loss = F.cross_entropy(model(ids), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
