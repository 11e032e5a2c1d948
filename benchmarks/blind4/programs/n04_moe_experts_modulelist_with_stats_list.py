"""Switch-style MoE with experts in an nn.ModuleList and routing statistics kept in plain lists."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SwitchFFN(nn.Module):
    def __init__(self, d=32, n_experts=4, hidden=64):
        super().__init__()
        self.router = nn.Linear(d, n_experts)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(d, hidden), nn.GELU(), nn.Linear(hidden, d))
                                      for _ in range(n_experts)])
        self.expert_names = [f"expert_{i}" for i in range(n_experts)]
        self.load_history = []
        self.register_buffer("token_counts", torch.zeros(n_experts))

    def forward(self, x):
        gate = self.router(x).softmax(-1)
        weight, idx = gate.max(-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            sel = idx == e
            if sel.any():
                out[sel] = weight[sel, None] * expert(x[sel])
        counts = torch.bincount(idx, minlength=len(self.experts)).float()
        self.token_counts += counts
        self.load_history.append(counts.tolist())
        aux = len(self.experts) * (counts / len(x) * gate.mean(0)).sum()
        return x + out, aux


if __name__ == "__main__":
    torch.manual_seed(0)
    inp, moe, head = nn.Linear(10, 32), SwitchFFN(), nn.Linear(32, 2)
    params = [*inp.parameters(), *moe.parameters(), *head.parameters()]
    opt = torch.optim.Adam(params, lr=2e-3)
    x = torch.randn(256, 10)
    y = (x[:, 0] > 0).long()
    for epoch in range(3):
        for i in range(0, 256, 64):
            h, aux = moe(inp(x[i:i + 64]))
            loss = F.cross_entropy(head(h), y[i:i + 64]) + 0.01 * aux
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, loss.item(), dict(zip(moe.expert_names, moe.load_history[-1])))
