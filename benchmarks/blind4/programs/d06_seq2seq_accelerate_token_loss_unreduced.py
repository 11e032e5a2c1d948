"""Toy copy-task seq2seq (GRU encoder/decoder) trained in an Accelerate-style loop."""
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, VOCAB = 0, 1, 24


class Accelerator:
    """Stand-in for accelerate.Accelerator on one CPU process."""

    def __init__(self, gradient_accumulation_steps=1):
        self.gradient_accumulation_steps = gradient_accumulation_steps

    def prepare(self, *objs):
        return objs

    def backward(self, loss):
        loss.backward()


class Seq2Seq(nn.Module):
    def __init__(self, d=48):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d, padding_idx=PAD)
        self.enc = nn.GRU(d, d, batch_first=True)
        self.dec = nn.GRU(d, d, batch_first=True)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, src, tgt_in):
        _, h = self.enc(self.emb(src))
        y, _ = self.dec(self.emb(tgt_in), h)
        return self.out(y)


def batches(n_batches=20, bs=16, length=9):
    for _ in range(n_batches):
        src = torch.randint(2, VOCAB, (bs, length))
        lens = torch.randint(4, length + 1, (bs,))
        src[torch.arange(length)[None, :] >= lens[:, None]] = PAD
        tgt_in = torch.cat([torch.full((bs, 1), BOS), src[:, :-1]], 1)
        yield src, tgt_in, src


def token_loss(logits, labels):
    per_tok = F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1), reduction="none")
    mask = (labels.reshape(-1) != PAD).float()
    return per_tok * mask


if __name__ == "__main__":
    torch.manual_seed(0)
    accelerator = Accelerator()
    model = Seq2Seq()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model, optimizer = accelerator.prepare(model, optimizer)
    for step, (src, tgt_in, labels) in enumerate(batches()):
        logits = model(src, tgt_in)
        loss = token_loss(logits, labels)
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
    print("done")
