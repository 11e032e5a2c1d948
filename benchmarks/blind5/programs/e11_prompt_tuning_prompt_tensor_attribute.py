"""Soft prompt tuning: a frozen transformer encoder, a trainable prompt prepended to every input."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, CLASSES = 50, 32, 3


class FrozenEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        layer = nn.TransformerEncoderLayer(D, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, embeds):
        return self.encoder(embeds)


class PromptTuned(nn.Module):
    def __init__(self, backbone, n_prompt=4):
        super().__init__()
        self.backbone = backbone
        for p in self.backbone.parameters():
            p.requires_grad = False
        self.prompt = torch.randn(n_prompt, D, requires_grad=True)
        self.classifier = nn.Linear(D, CLASSES)

    def forward(self, ids):
        tok = self.backbone.embed(ids)
        prompt = self.prompt.unsqueeze(0).expand(ids.shape[0], -1, -1)
        h = self.backbone(torch.cat([prompt, tok], dim=1))
        return self.classifier(h[:, 0])


def trainable(model):
    return [p for p in model.parameters() if p.requires_grad]


model = PromptTuned(FrozenEncoder())
optimizer = torch.optim.AdamW(trainable(model), lr=5e-3)
ids = torch.randint(0, VOCAB, (96, 10))
labels = ids[:, 0] % CLASSES
for epoch in range(3):
    for i in range(0, 96, 32):
        logits = model(ids[i:i + 32])
        loss = F.cross_entropy(logits, labels[i:i + 32])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item(), model.prompt.grad.norm().item())
