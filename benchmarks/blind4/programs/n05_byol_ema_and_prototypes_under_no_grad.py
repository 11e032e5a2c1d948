"""BYOL-style training: EMA target encoder and prototype renormalisation, both under no_grad."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Online(nn.Module):
    def __init__(self, d_in=32, d=64, d_proj=16, n_protos=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d), nn.ReLU(), nn.Linear(d, d_proj))
        self.predictor = nn.Sequential(nn.Linear(d_proj, d), nn.ReLU(), nn.Linear(d, d_proj))
        self.prototypes = nn.Linear(d_proj, n_protos, bias=False)

    @torch.no_grad()
    def normalize_prototypes(self):
        w = self.prototypes.weight
        w.div_(w.norm(dim=1, keepdim=True))


@torch.no_grad()
def ema_update(target, online, tau=0.99):
    for pt, po in zip(target.parameters(), online.parameters()):
        pt.mul_(tau).add_(po, alpha=1 - tau)


def byol_loss(p, z):
    return 2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1).mean()


if __name__ == "__main__":
    torch.manual_seed(0)
    online = Online()
    target_encoder = copy.deepcopy(online.encoder).requires_grad_(False)
    opt = torch.optim.Adam(online.parameters(), lr=1e-3)
    data = torch.randn(512, 32)
    for step in range(20):
        x = data[torch.randint(0, 512, (64,))]
        v1, v2 = x + 0.1 * torch.randn_like(x), x * (torch.rand_like(x) > 0.2)
        online.normalize_prototypes()
        p1, p2 = online.predictor(online.encoder(v1)), online.predictor(online.encoder(v2))
        with torch.no_grad():
            t1, t2 = target_encoder(v1), target_encoder(v2)
        proto_logits = online.prototypes(F.normalize(online.encoder(v1), dim=-1))
        loss = byol_loss(p1, t2) + byol_loss(p2, t1) + 0.1 * proto_logits.logsumexp(-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema_update(target_encoder, online.encoder)
    print(loss.item())
