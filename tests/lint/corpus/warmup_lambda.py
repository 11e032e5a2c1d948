"""Transformer encoder training with a Noam-style warm-up LambdaLR stepped per batch."""
import math

import torch
import torch.nn as nn

d_model = 128
model = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model, nhead=4, batch_first=True), num_layers=2)
head = nn.Linear(d_model, 1000)
params = list(model.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=1.0, betas=(0.9, 0.98), eps=1e-9)
warmup = 4000


def rate(step):
    step = max(step, 1)
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=rate)
criterion = nn.CrossEntropyLoss(ignore_index=0)

for epoch in range(20):
    total_tokens, total_loss = 0, 0.0
    for src, tgt in loader:
        logits = head(model(src))
        loss = criterion(logits.view(-1, logits.size(-1)), tgt.view(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        scheduler.step()
        ntokens = (tgt != 0).sum().item()
        total_tokens += ntokens
        total_loss += loss.item() * ntokens
    print(f"epoch {epoch} ppl {math.exp(total_loss / total_tokens):.2f}")
