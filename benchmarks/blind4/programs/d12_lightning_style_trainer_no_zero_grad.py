"""Hand-written 'fit' loop for Lightning-style modules (training_step/configure_optimizers)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TabularRegressor(nn.Module):
    def __init__(self, d_in=12, lr=1e-3):
        super().__init__()
        self.lr = lr
        self.model = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.mse_loss(self.model(x).squeeze(-1), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        return F.mse_loss(self.model(x).squeeze(-1), y)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.lr)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))
        return opt, sched


def fit(module, train_batches, val_batches, max_epochs=3):
    opt, sched = module.configure_optimizers()
    for epoch in range(max_epochs):
        module.train()
        for batch_idx, batch in enumerate(train_batches):
            loss = module.training_step(batch, batch_idx)
            loss.backward()
            opt.step()
            sched.step()
        module.eval()
        with torch.no_grad():
            val = sum(module.validation_step(b, i).item() for i, b in enumerate(val_batches)) / len(val_batches)
        print(f"epoch {epoch}: train {loss.item():.3f} val {val:.3f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(400, 12)
    y = x @ torch.randn(12) + 0.1 * torch.randn(400)
    batches = [(x[i:i + 40], y[i:i + 40]) for i in range(0, 400, 40)]
    fit(TabularRegressor(), batches[:8], batches[8:])
