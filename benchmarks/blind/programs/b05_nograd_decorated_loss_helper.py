# Seq2seq GRU translator; the loss helper was written for validation and reused in training (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)

SRC_VOCAB, TGT_VOCAB, HID, SEQ = 20, 20, 32, 6


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(SRC_VOCAB, HID)
        self.tgt_emb = nn.Embedding(TGT_VOCAB, HID)
        self.encoder = nn.GRU(HID, HID, batch_first=True)
        self.decoder = nn.GRU(HID, HID, batch_first=True)
        self.out = nn.Linear(HID, TGT_VOCAB)

    def forward(self, src, tgt_in):
        _, h = self.encoder(self.src_emb(src))
        dec, _ = self.decoder(self.tgt_emb(tgt_in), h)
        return self.out(dec)


criterion = nn.CrossEntropyLoss()


@torch.no_grad()
def sequence_loss(model, src, tgt):
    tgt_in, tgt_out = tgt[:, :-1], tgt[:, 1:]
    logits = model(src, tgt_in)
    return criterion(logits.reshape(-1, TGT_VOCAB), tgt_out.reshape(-1))


src = torch.randint(1, SRC_VOCAB, (48, SEQ))
tgt = torch.cat([torch.zeros(48, 1, dtype=torch.long), src.flip(1)], dim=1)

model = Seq2Seq()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

for epoch in range(5):
    model.train()
    total = 0.0
    for i in range(0, 48, 16):
        optimizer.zero_grad()
        loss = sequence_loss(model, src[i:i + 16], tgt[i:i + 16])
        loss.requires_grad_(True)
        loss.backward()
        optimizer.step()
        total += loss.item()
    model.eval()
    val = sequence_loss(model, src[:16], tgt[:16]).item()
    print(f"epoch {epoch} train {total / 3:.4f} val {val:.4f}")
