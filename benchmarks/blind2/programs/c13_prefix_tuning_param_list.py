# Prefix tuning on a frozen tiny transformer: one learned prefix per layer, kept in a list.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class PrefixModel(nn.Module):
    def __init__(self, dim=32, layers=2, prefix_len=4, vocab=40):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(
            [nn.TransformerEncoderLayer(dim, 4, 64, batch_first=True) for _ in range(layers)]
        )
        self.prefixes = [nn.Parameter(torch.randn(prefix_len, dim) * 0.02) for _ in range(layers)]
        self.lm_head = nn.Linear(dim, vocab)
        for p in self.embed.parameters():
            p.requires_grad_(False)
        for p in self.layers.parameters():
            p.requires_grad_(False)

    def forward(self, ids):
        h = self.embed(ids)
        for layer, prefix in zip(self.layers, self.prefixes):
            p = prefix.unsqueeze(0).expand(h.size(0), -1, -1)
            h = layer(torch.cat([p, h], dim=1))[:, p.size(1):]
        return self.lm_head(h)


model = PrefixModel()
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
for step in range(15):
    ids = torch.randint(0, 40, (8, 10))
    logits = model(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 40), ids[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, loss.item())
