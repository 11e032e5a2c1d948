"""Transformer encoder-decoder on a reversal task, teacher forcing, label smoothing."""
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS, VOCAB = 0, 1, 2, 20


class Translator(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.src_emb = nn.Embedding(VOCAB, d, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(VOCAB, d, padding_idx=PAD)
        self.transformer = nn.Transformer(d, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                          dim_feedforward=128, dropout=0.1, batch_first=True)
        self.generator = nn.Linear(d, VOCAB)

    def forward(self, src, tgt_in):
        mask = self.transformer.generate_square_subsequent_mask(tgt_in.shape[1])
        h = self.transformer(self.src_emb(src), self.tgt_emb(tgt_in), tgt_mask=mask,
                             src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt_in == PAD)
        return self.generator(h)


def make_batch(bs=32, length=8):
    src = torch.randint(3, VOCAB, (bs, length))
    tgt = torch.cat([src.flip(1), torch.full((bs, 1), EOS)], 1)
    tgt_in = torch.cat([torch.full((bs, 1), BOS), tgt[:, :-1]], 1)
    return src, tgt_in, tgt


def train_step(model, optimizer, batch, clip=1.0):
    src, tgt_in, tgt_out = batch
    logits = model(src, tgt_in)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt_out.reshape(-1), ignore_index=PAD, label_smoothing=0.1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    return loss.item(), grad_norm.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Translator()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4, betas=(0.9, 0.98))
    for step in range(15):
        loss, gn = train_step(model, optimizer, make_batch())
        if step % 5 == 0:
            print(step, round(loss, 3), round(gn, 3))
