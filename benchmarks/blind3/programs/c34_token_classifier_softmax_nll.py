"""Token classification (NER-style) with label masking and NLL loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TokenTagger(nn.Module):
    def __init__(self, vocab=60, dim=16, n_tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * dim, n_tags)

    def forward(self, ids):
        h, _ = self.lstm(self.embed(ids))
        return {"scores": self.proj(h).softmax(dim=-1)}


model = TokenTagger()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    ids = torch.randint(0, 60, (4, 11))
    tags = torch.randint(0, 5, (4, 11))
    tags[:, -3:] = -100
    out = model(ids)
    loss = F.nll_loss(out["scores"].view(-1, 5), tags.view(-1), ignore_index=-100)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
