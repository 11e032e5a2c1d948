"""Prompt-tuned encoder with a Parameter prompt, a buffer mask, and experts registered with add_module."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D = 16


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(D, 32), nn.GELU(), nn.Linear(32, D))

    def forward(self, x):
        return self.ff(x)


class PromptMoE(nn.Module):
    def __init__(self, n_prompt=3, n_experts=3, classes=2):
        super().__init__()
        self.prompt = nn.Parameter(torch.randn(n_prompt, D) * 0.02)
        self.register_buffer("prompt_mask", torch.ones(n_prompt))
        self.experts = []
        for i in range(n_experts):
            expert = Expert()
            self.add_module(f"expert_{i}", expert)
            self.experts.append(expert)
        self.router = nn.Linear(D, n_experts)
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(n_experts)])
        self.cls = nn.Linear(D, classes)
        self.route_counts = [0] * n_experts

    def forward(self, x):
        prompt = (self.prompt * self.prompt_mask[:, None]).unsqueeze(0).expand(x.shape[0], -1, -1)
        h = torch.cat([prompt, x], 1).mean(1)
        gates = F.softmax(self.router(h), dim=-1)
        for i, top in enumerate(gates.argmax(-1).tolist()):
            self.route_counts[top] += 1
        mixed = sum(gates[:, i:i + 1] * s * e(h) for i, (e, s) in enumerate(zip(self.experts, self.scales)))
        return self.cls(mixed)


model = PromptMoE()
print("params:", sum(p.numel() for p in model.parameters()))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
x = torch.randn(128, 5, D)
y = (x[:, 0, 0] > 0).long()
for epoch in range(4):
    for i in range(0, 128, 32):
        loss = F.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 4), model.route_counts)
