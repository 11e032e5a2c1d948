"""SwAV-style clustering head: prototypes are re-normalised to the unit sphere every step."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SwAVHead(nn.Module):
    def __init__(self, d_in=32, d_proj=16, n_protos=10):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, d_proj))
        self.prototypes = nn.Linear(d_proj, n_protos, bias=False)

    def normalize_prototypes(self):
        w = self.prototypes.weight
        w.div_(w.norm(dim=1, keepdim=True))

    def forward(self, x):
        z = F.normalize(self.proj(x), dim=1)
        return z, self.prototypes(z)


@torch.no_grad()
def sinkhorn(scores, eps=0.05, iters=3):
    q = torch.exp(scores / eps).t()
    q /= q.sum()
    k, b = q.shape
    for _ in range(iters):
        q /= q.sum(dim=1, keepdim=True)
        q /= k
        q /= q.sum(dim=0, keepdim=True)
        q /= b
    return (q * b).t()


def augment(x):
    return x + 0.1 * torch.randn_like(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    head = SwAVHead()
    opt = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
    data = torch.randn(512, 32)
    for step in range(10):
        x = data[torch.randint(0, 512, (64,))]
        head.normalize_prototypes()
        _, s1 = head(augment(x))
        _, s2 = head(augment(x))
        q1, q2 = sinkhorn(s1), sinkhorn(s2)
        loss = -0.5 * ((q1 * F.log_softmax(s2 / 0.1, 1)).sum(1).mean() + (q2 * F.log_softmax(s1 / 0.1, 1)).sum(1).mean())
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())
