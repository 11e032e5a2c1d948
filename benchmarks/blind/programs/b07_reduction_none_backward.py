# Token-level LM loss with padding mask; reduction='none' kept for masking, reduction forgotten (2025).
import torch
import torch.nn as nn

torch.manual_seed(0)

VOCAB, DIM, SEQ, PAD = 30, 24, 10, 0


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM, padding_idx=PAD)
        self.rnn = nn.LSTM(DIM, DIM, batch_first=True)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return self.head(h)


def make_batch(bs=8):
    lengths = torch.randint(4, SEQ + 1, (bs,))
    ids = torch.randint(1, VOCAB, (bs, SEQ))
    mask = torch.arange(SEQ)[None, :] < lengths[:, None]
    return ids * mask, mask


model = TinyLM()
loss_fct = nn.CrossEntropyLoss(reduction="none")
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

for step in range(25):
    ids, mask = make_batch()
    logits = model(ids[:, :-1])
    targets = ids[:, 1:]
    token_loss = loss_fct(logits.reshape(-1, VOCAB), targets.reshape(-1))
    token_loss = token_loss * mask[:, 1:].reshape(-1).float()
    optimizer.zero_grad()
    token_loss.backward()
    optimizer.step()
    print(f"step {step} loss {token_loss.sum().item() / mask[:, 1:].sum().item():.4f}")
