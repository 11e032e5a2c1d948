"""A LightningModule trained with Trainer(strategy="ddp", devices=2, accelerator="cpu") and GradDoctorCallback.

argv[1]: "unused" (a head that forward never uses), "diverge" (rank 1 edits a weight in place:
the replicas drift apart) or "correct" (the near miss). Rank 0 writes the report to argv[2].
"""

import sys

import lightning.pytorch as pl
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from graddoctor.integrations.lightning import GradDoctorCallback

MODE, OUT = sys.argv[1], sys.argv[2]


class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 1)
        self.aux = nn.Linear(8, 3)

    def training_step(self, batch, batch_idx):
        x, y = batch
        h = torch.relu(self.body(x))
        loss = nn.functional.mse_loss(self.head(h), y)
        if MODE != "unused":
            loss = loss + 0.01 * self.aux(h).pow(2).mean()
        return loss

    def on_train_batch_start(self, batch, batch_idx):
        if MODE == "diverge" and self.global_rank == 1 and batch_idx == 2:
            with torch.no_grad():
                self.head.bias.add_(0.5)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


if __name__ == "__main__":
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    callback = GradDoctorCallback()
    trainer = pl.Trainer(strategy="ddp", devices=2, accelerator="cpu", max_epochs=1, callbacks=[callback],
                         logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False)
    try:
        trainer.fit(Net(), DataLoader(data, batch_size=8))
    except Exception as exc:  # GD401 without find_unused_parameters: DDP raises on the next step
        print(f"fit raised {type(exc).__name__}", file=sys.stderr)
    if trainer.is_global_zero:
        with open(OUT, "w") as handle:
            handle.write(callback.report().to_json())
