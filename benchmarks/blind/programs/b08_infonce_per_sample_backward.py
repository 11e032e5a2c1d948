# SimCLR-style contrastive pretraining; the loss helper returns per-sample losses (2025 thread).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, in_dim=20, feat_dim=32, proj_dim=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU())
        self.projector = nn.Sequential(nn.Linear(feat_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, proj_dim))

    def forward(self, x):
        return self.projector(self.backbone(x))


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def info_nce(z1, z2, temperature=0.2):
    z1, z2 = F.normalize(z1, dim=1), F.normalize(z2, dim=1)
    logits = z1 @ z2.t() / temperature
    labels = torch.arange(z1.size(0))
    loss_12 = F.cross_entropy(logits, labels, reduction="none")
    loss_21 = F.cross_entropy(logits.t(), labels, reduction="none")
    return {"loss": (loss_12 + loss_21) / 2, "acc": (logits.argmax(1) == labels).float().mean()}


data = torch.randn(128, 20)
model = Encoder()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)

for epoch in range(3):
    for i in range(0, 128, 32):
        x = data[i:i + 32]
        out = info_nce(model(augment(x)), model(augment(x)))
        optimizer.zero_grad()
        out["loss"].backward()
        optimizer.step()
    print(f"epoch {epoch} loss {out['loss'].mean().item():.4f} acc {out['acc'].item():.3f}")
