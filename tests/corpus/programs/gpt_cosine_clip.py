"""A nanoGPT-style loop: accumulation, AdamW param groups, warm-up + cosine LR, clipping."""
import math

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=32, n_head=2, vocab_size=64, n_positions=32, bos_token_id=0, eos_token_id=0)
model = GPT2LMHeadModel(config)
decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=1e-3)
max_iters, warmup, accum = 12, 3, 2


def lr_at(it):
    if it < warmup:
        return 1e-3 * (it + 1) / warmup
    return 1e-4 + 0.5 * (1e-3 - 1e-4) * (1 + math.cos(math.pi * (it - warmup) / (max_iters - warmup)))


for it in range(max_iters):
    for group in optimizer.param_groups:
        group["lr"] = lr_at(it)
    for micro in range(accum):
        tokens = torch.randint(0, 64, (4, 32))
        loss = model(tokens, labels=tokens).loss / accum
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
