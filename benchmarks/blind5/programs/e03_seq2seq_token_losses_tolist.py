"""Tiny GRU seq2seq (copy task); per-sequence losses averaged for the log and the update."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, PAD, BOS = 20, 0, 1


class Seq2Seq(nn.Module):
    def __init__(self, vocab, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=PAD)
        self.enc = nn.GRU(d, d, batch_first=True)
        self.dec = nn.GRU(d, d, batch_first=True)
        self.out = nn.Linear(d, vocab)

    def forward(self, src, tgt_in):
        _, h = self.enc(self.emb(src))
        y, _ = self.dec(self.emb(tgt_in), h)
        return self.out(y)


def make_batch(bs=16, length=8):
    src = torch.randint(2, VOCAB, (bs, length))
    lengths = torch.randint(4, length + 1, (bs,))
    for i, n in enumerate(lengths):
        src[i, n:] = PAD
    tgt_in = torch.cat([torch.full((bs, 1), BOS), src[:, :-1]], dim=1)
    return src, tgt_in, src.clone()


def sequence_losses(logits, tgt):
    tok = F.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=PAD, reduction="none")
    mask = (tgt != PAD).float()
    return (tok * mask).sum(1) / mask.sum(1)


model = Seq2Seq(VOCAB)
optim = torch.optim.AdamW(model.parameters(), lr=3e-3)

for step in range(40):
    src, tgt_in, tgt = make_batch()
    logits = model(src, tgt_in)
    per_seq = sequence_losses(logits, tgt).tolist()
    loss = torch.tensor(sum(per_seq) / len(per_seq), requires_grad=True)
    optim.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optim.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} worst {max(per_seq):.3f}")
