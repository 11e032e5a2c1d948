"""Hand-written LoRA on a frozen MLP 'base model', trained on a new regression task."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        self.scaling = alpha / r
        self.lora_A = (torch.randn(r, base.in_features) / math.sqrt(base.in_features)).requires_grad_()
        self.lora_B = torch.zeros(base.out_features, r, requires_grad=True)

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


def inject_lora(model: nn.Module, targets=("fc1", "fc2"), r=4):
    for name in targets:
        setattr(model, name, LoRALinear(getattr(model, name), r=r))
    return model


class BaseMLP(nn.Module):
    def __init__(self, d=16, hidden=64):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        return self.out(F.gelu(self.fc2(F.gelu(self.fc1(x))))).squeeze(-1)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = inject_lora(BaseMLP())
    for p in model.out.parameters():
        p.requires_grad_(False)
    trainable = [p for p in model.parameters() if p.requires_grad]
    print("trainable tensors:", len(trainable))
    opt = torch.optim.AdamW(trainable, lr=1e-3)
    x = torch.randn(256, 16)
    y = x[:, :4].sum(-1)
    for step in range(20):
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())
