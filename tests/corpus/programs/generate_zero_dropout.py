"""A tiny GPT-style language model (timm/nanoGPT configuration style) built with drop_rate=0.0 and no
batch norm, sampled with generate() between training steps without model.eval(): dropout with p=0
and layer norm behave the same in both modes, so the samples are exactly the eval-mode ones."""
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
vocab, block, width = 16, 12, 32


class TinyGPT(nn.Module):
    def __init__(self, drop_rate=0.0):
        super().__init__()
        self.tok = nn.Embedding(vocab, width)
        self.pos = nn.Embedding(block, width)
        self.drop = nn.Dropout(drop_rate)
        layer = nn.TransformerEncoderLayer(width, 4, 64, dropout=drop_rate, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab)

    def forward(self, idx):
        t = idx.shape[1]
        x = self.drop(self.tok(idx) + self.pos(torch.arange(t)))
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        return self.head(self.ln_f(self.blocks(x, mask=mask, is_causal=True)))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens):
        for _ in range(max_new_tokens):
            logits = self(idx[:, -block:])[:, -1, :]
            next_id = torch.multinomial(F.softmax(logits, dim=-1), 1)
            idx = torch.cat([idx, next_id], dim=1)
        return idx


data = torch.arange(400) % vocab
model = TinyGPT(drop_rate=0.0)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
for it in range(30):
    ix = torch.randint(0, len(data) - block - 1, (8,))
    x = torch.stack([data[i:i + block] for i in ix])
    y = torch.stack([data[i + 1:i + block + 1] for i in ix])
    loss = F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    if it % 10 == 9:
        sample = model.generate(torch.zeros(1, 1, dtype=torch.long), 8)
        print(f"iter {it}: loss {loss.item():.3f}, sample {sample[0].tolist()}")
