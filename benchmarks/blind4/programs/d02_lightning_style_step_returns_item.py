"""A LightningModule-like classifier driven by a tiny hand-written trainer."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LitClassifier(nn.Module):
    def __init__(self, d_in=20, n_cls=5, lr=1e-3):
        super().__init__()
        self.save_hparams = {"lr": lr}
        self.net = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, n_cls))
        self.logged = {}

    def log(self, name, value):
        self.logged[name] = value

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        loss = F.cross_entropy(logits, y, label_smoothing=0.05)
        acc = (logits.argmax(-1) == y).float().mean()
        self.log("train_acc", acc.item())
        return {"loss": loss.item(), "acc": acc.item()}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.save_hparams["lr"])


class MiniTrainer:
    def __init__(self, max_epochs=2):
        self.max_epochs = max_epochs

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(loader):
                out = module.training_step(batch, batch_idx)
                opt.zero_grad()
                out["loss"].backward()
                opt.step()
            print(epoch, module.logged)


def make_loader(n=320, bs=32):
    x = torch.randn(n, 20)
    y = (x[:, :5].argmax(-1))
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


if __name__ == "__main__":
    torch.manual_seed(0)
    MiniTrainer().fit(LitClassifier(), make_loader())
