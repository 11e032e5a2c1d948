"""A LightningModule with automatic optimization and a per-step warm-up schedule."""
import lightning as L
import torch
import torch.nn.functional as F
from torch import nn


class LitClassifier(L.LightningModule):
    def __init__(self, hidden=64, lr=1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.backbone = nn.Sequential(nn.Linear(28 * 28, hidden), nn.ReLU(), nn.Linear(hidden, 10))
        self.val_outputs = []

    def forward(self, x):
        return self.backbone(x.view(x.size(0), -1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.val_outputs.append(loss.detach())
        self.log("val_loss", loss, prog_bar=True)

    def on_validation_epoch_end(self):
        mean = torch.stack(self.val_outputs).mean()
        self.log("val_loss_epoch", mean)
        self.val_outputs.clear()

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 500))
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}


if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=3, gradient_clip_val=1.0, accumulate_grad_batches=4)
    trainer.fit(LitClassifier(), train_loader, val_loader)
