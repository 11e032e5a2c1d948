"""AMP trainer (GradScaler + autocast) with gradient clipping, arguments in a dataclass."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@dataclass
class TrainingArguments:
    learning_rate: float = 3e-4
    max_grad_norm: float = 1.0
    num_epochs: int = 2
    batch_size: int = 32
    fp16: bool = True


class Regressor(nn.Module):
    def __init__(self, din=24):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(din, 128), nn.GELU(), nn.LayerNorm(128), nn.Linear(128, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


class AmpTrainer:
    def __init__(self, model, args: TrainingArguments):
        self.model = model.to(DEVICE)
        self.args = args
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        self.scaler = torch.amp.GradScaler(DEVICE, enabled=args.fp16)
        self.amp_dtype = torch.float16 if DEVICE == "cuda" else torch.bfloat16

    def training_step(self, x, y):
        with torch.autocast(DEVICE, dtype=self.amp_dtype, enabled=self.args.fp16):
            loss = F.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        if self.args.max_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    def train(self, x, y):
        for epoch in range(self.args.num_epochs):
            perm = torch.randperm(len(x))
            for i in range(0, len(x), self.args.batch_size):
                idx = perm[i:i + self.args.batch_size]
                loss = self.training_step(x[idx].to(DEVICE), y[idx].to(DEVICE))
            print(epoch, loss.item(), self.scaler.get_scale())


x = torch.randn(512, 24)
y = x @ torch.randn(24) + 0.1 * torch.randn(512)
AmpTrainer(Regressor(), TrainingArguments()).train(x, y)
