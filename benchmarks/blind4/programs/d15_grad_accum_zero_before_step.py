"""Causal LM (tiny transformer) with gradient accumulation over micro-batches."""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, CTX = 64, 16


class TinyGPT(nn.Module):
    def __init__(self, d=64, n_layers=2, n_heads=4):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.zeros(1, CTX, d))
        layer = nn.TransformerEncoderLayer(d, n_heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layers)
        self.ln = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, idx):
        t = idx.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.blocks(self.tok(idx) + self.pos[:, :t], mask=mask, is_causal=True)
        return self.lm_head(self.ln(h))


def get_batch(data, bs=8):
    ix = torch.randint(0, len(data) - CTX - 1, (bs,))
    x = torch.stack([data[i:i + CTX] for i in ix])
    y = torch.stack([data[i + 1:i + CTX + 1] for i in ix])
    return x, y


if __name__ == "__main__":
    torch.manual_seed(0)
    data = torch.arange(4000) % VOCAB
    model = TinyGPT()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95))
    accum_steps = 4
    for micro_step in range(24):
        x, y = get_batch(data)
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, VOCAB), y.view(-1)) / accum_steps
        loss.backward()
        if (micro_step + 1) % accum_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.zero_grad(set_to_none=True)
            optimizer.step()
            print(micro_step, loss.item() * accum_steps)
