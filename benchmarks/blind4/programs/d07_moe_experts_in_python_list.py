"""Top-2 mixture-of-experts feed-forward layer with a load-balancing loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Expert(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.w1 = nn.Linear(d, hidden)
        self.w2 = nn.Linear(hidden, d)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)))


class MoE(nn.Module):
    def __init__(self, d=32, n_experts=4, hidden=64, k=2):
        super().__init__()
        self.k = k
        self.router = nn.Linear(d, n_experts, bias=False)
        self.experts = [Expert(d, hidden) for _ in range(n_experts)]

    def forward(self, x):
        probs = self.router(x).softmax(-1)
        topv, topi = probs.topk(self.k, dim=-1)
        topv = topv / topv.sum(-1, keepdim=True)
        out = torch.zeros_like(x)
        for slot in range(self.k):
            for e, expert in enumerate(self.experts):
                sel = topi[:, slot] == e
                if sel.any():
                    out[sel] += topv[sel, slot, None] * expert(x[sel])
        load = F.one_hot(topi[:, 0], probs.shape[-1]).float().mean(0)
        aux = probs.shape[-1] * (load * probs.mean(0)).sum()
        return out, aux


class Model(nn.Module):
    def __init__(self, d_in=10, d=32, n_cls=3):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.moe = MoE(d)
        self.head = nn.Linear(d, n_cls)

    def forward(self, x):
        h = self.inp(x)
        m, aux = self.moe(h)
        return self.head(h + m), aux


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(512, 10)
    y = (x[:, 0] * x[:, 1] > 0).long() + (x[:, 2] > 1).long()
    model = Model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    for epoch in range(3):
        for i in range(0, 512, 64):
            logits, aux = model(x[i:i + 64])
            loss = F.cross_entropy(logits, y[i:i + 64]) + 0.01 * aux
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item())
