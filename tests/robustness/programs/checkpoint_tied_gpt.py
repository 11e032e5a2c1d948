"""A small GPT with tied input/output embeddings and non-reentrant activation checkpointing per block."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Block(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(0.1))

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int = 50, d: int = 32, layers: int = 2, length: int = 12) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(length, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied

    def forward(self, ids):
        n = ids.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf")), 1)
        x = self.tok(ids) + self.pos(torch.arange(n))
        for block in self.blocks:
            x = checkpoint(block, x, mask, use_reentrant=False)
        return self.head(self.ln(x))


torch.manual_seed(0)
model = GPT()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
data = torch.randint(0, 50, (8, 13))
for step in range(4):
    logits = model(data[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, 50), data[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", loss.item(), "weights", sum(p.double().sum() for p in model.parameters()).item())
