"""Seq2seq token loss and a per-sample weighted diffusion loss, both computed unreduced then reduced."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, PAD = 16, 0


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32, padding_idx=PAD)
        self.rnn = nn.GRU(32, 32, batch_first=True)
        self.out = nn.Linear(32, VOCAB)
        self.denoise = nn.Sequential(nn.Linear(9, 32), nn.SiLU(), nn.Linear(32, 8))

    def forward(self, ids):
        return self.out(self.rnn(self.emb(ids))[0])


def masked_token_loss(logits, targets):
    per_tok = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none")
    mask = (targets != PAD).float()
    return (per_tok * mask).sum() / mask.sum().clamp(min=1)


def weighted_denoise_loss(model, x0):
    t = torch.rand(x0.shape[0], 1)
    noise = torch.randn_like(x0)
    x_t = (1 - t).sqrt() * x0 + t.sqrt() * noise
    per_sample = F.mse_loss(model.denoise(torch.cat([x_t, t], 1)), noise, reduction="none").mean(dim=1)
    weights = 1.0 / (t.squeeze(1) + 0.1)
    return (weights * per_sample).sum() / weights.sum()


model = TinyLM()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(20):
    ids = torch.randint(1, VOCAB, (16, 9))
    ids[:, 6:] = PAD
    lm = masked_token_loss(model(ids[:, :-1]), ids[:, 1:])
    dn = weighted_denoise_loss(model, torch.randn(16, 8))
    loss = lm + 0.5 * dn
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(step, round(lm.item(), 4), round(dn.item(), 4))
