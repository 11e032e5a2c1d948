"""Gradient accumulation with an Accelerate-like helper: step, then zero, on accumulation boundaries."""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, CTX = 48, 12


class TinyLM(nn.Module):
    def __init__(self, d=48):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.rnn = nn.GRU(d, d, batch_first=True)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, idx):
        h, _ = self.rnn(self.emb(idx))
        return self.out(h)


def sync_gradients(micro_step, accum_steps):
    return (micro_step + 1) % accum_steps == 0


if __name__ == "__main__":
    torch.manual_seed(0)
    data = (torch.arange(3000) * 7) % VOCAB
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
    accum_steps = 4
    optimizer.zero_grad(set_to_none=True)
    for micro_step in range(20):
        ix = torch.randint(0, len(data) - CTX - 1, (8,))
        x = torch.stack([data[i:i + CTX] for i in ix])
        y = torch.stack([data[i + 1:i + CTX + 1] for i in ix])
        loss = F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1)) / accum_steps
        loss.backward()
        if sync_gradients(micro_step, accum_steps):
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            print(micro_step, loss.item() * accum_steps)
