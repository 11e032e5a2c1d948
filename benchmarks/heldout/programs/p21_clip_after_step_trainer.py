# heldout: expect=GD206 line=31 alt_lines=- static=yes
# A GRU sequence regressor whose trainer clips gradients after the optimizer step.
import torch
import torch.nn as nn

torch.manual_seed(0)


class SeqRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 24, batch_first=True)
        self.out = nn.Linear(24, 1)

    def forward(self, x):
        h, _ = self.gru(x)
        return self.out(h[:, -1])


class Trainer:
    def __init__(self, model, max_norm=1.0):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=3e-3)
        self.max_norm = max_norm

    def update(self, x, y):
        self.opt.zero_grad()
        loss = nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.opt.step()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        return loss.item()


x = torch.randn(128, 15, 3)
y = x[:, :, 0].sum(1, keepdim=True)
trainer = Trainer(SeqRegressor())
for epoch in range(3):
    for i in range(0, 128, 32):
        value = trainer.update(x[i:i + 32], y[i:i + 32])
    print(epoch, value)
