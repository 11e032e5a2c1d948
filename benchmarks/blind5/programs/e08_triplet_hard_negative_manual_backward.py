"""Metric learning with triplets, hard triplets up-weighted; a Lightning-like module with manual optimisation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class EmbeddingModule(nn.Module):
    automatic_optimization = False

    def __init__(self, din=32, dout=16, margin=0.3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(din, 64), nn.ReLU(), nn.Linear(64, dout))
        self.margin = margin
        self._opt = None

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)

    def configure_optimizers(self):
        self._opt = torch.optim.Adam(self.parameters(), lr=1e-3)
        return self._opt

    def manual_backward(self, loss):
        loss.backward()

    def triplet_term(self, a, p, n):
        per = F.triplet_margin_loss(a, p, n, margin=self.margin, reduction="none")
        weights = torch.softmax(per.detach(), dim=0) * per.numel()
        return weights * per

    def training_step(self, batch, batch_idx):
        anchor, positive, negative = (self(t) for t in batch)
        loss = self.triplet_term(anchor, positive, negative)
        opt = self._opt
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        return loss.detach()


def triplet_batches(n_batches=10, bs=32, din=32):
    centers = torch.randn(8, din)
    for _ in range(n_batches):
        c = torch.randint(0, 8, (bs,))
        other = (c + torch.randint(1, 8, (bs,))) % 8
        yield (centers[c] + 0.3 * torch.randn(bs, din),
               centers[c] + 0.3 * torch.randn(bs, din),
               centers[other] + 0.3 * torch.randn(bs, din))


module = EmbeddingModule()
module.configure_optimizers()
for i, batch in enumerate(triplet_batches()):
    out = module.training_step(batch, i)
    print(i, out.mean().item())
