"""Cost of the framework callbacks: a Lightning fit and a Transformers train, with and without.

Variants alternate in one process (best of several rounds each), so the
printed ratio holds on a shared, noisy machine.
"""

from __future__ import annotations

import logging
import tempfile
import time
import warnings

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

ROUNDS = 5


def _best(fn, rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _lightning(steps: int):
    import lightning.pytorch as pl

    for name in ("lightning.pytorch", "lightning.pytorch.utilities.rank_zero"):
        logging.getLogger(name).setLevel(logging.ERROR)

    from graddoctor.integrations.lightning import GradDoctorCallback

    class Net(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))

        def training_step(self, batch, batch_idx):
            x, y = batch
            return nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=1e-3)

    data = DataLoader(TensorDataset(torch.randn(steps * 32, 64), torch.randn(steps * 32, 1)), batch_size=32)

    def fit(callbacks):
        def run():
            trainer = pl.Trainer(max_steps=steps, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                                 enable_model_summary=False, accelerator="cpu", devices=1, callbacks=callbacks(),
                                 num_sanity_val_steps=0)
            trainer.fit(Net(), data)
        return run

    return fit(lambda: []), fit(lambda: [GradDoctorCallback(print_report=False)])


def _transformers(steps: int):
    from transformers import GPT2Config, GPT2LMHeadModel, PrinterCallback, Trainer, TrainingArguments
    from transformers.utils import logging as hf_logging

    from graddoctor.integrations.transformers import GradDoctorCallback

    hf_logging.set_verbosity_error()
    ids = torch.randint(0, 128, (steps * 8, 32))
    data = [{"input_ids": row, "labels": row} for row in ids]
    out = tempfile.mkdtemp()

    def train(callbacks):
        def run():
            model = GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=128, n_positions=32))
            args = TrainingArguments(output_dir=out, max_steps=steps, per_device_train_batch_size=8, report_to="none",
                                     use_cpu=True, logging_strategy="no", save_strategy="no", disable_tqdm=True)
            trainer = Trainer(model=model, args=args, train_dataset=data, callbacks=callbacks())
            trainer.remove_callback(PrinterCallback)  # it prints the final metrics dict
            trainer.train()
        return run

    return train(lambda: []), train(lambda: [GradDoctorCallback(print_report=False)])


def main() -> None:
    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    print(f"{'workload':<40} {'plain s':>8} {'callback s':>11} {'ratio':>6}")
    for label, (plain, watched) in (
        ("Lightning MLP, 200 steps", _lightning(200)),
        ("Transformers GPT-2 (2 layers), 40 steps", _transformers(40)),
    ):
        plain()  # warm-up: imports, first-call costs
        a, b = [], []
        for _ in range(ROUNDS):
            a.append(_best(plain, 1))
            b.append(_best(watched, 1))
        print(f"{label:<40} {min(a):>8.2f} {min(b):>11.2f} {min(b) / min(a):>6.2f}")


if __name__ == "__main__":
    main()
