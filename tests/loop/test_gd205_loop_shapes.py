"""GD205 without a DataLoader: batches sliced from tensors, the loop written by hand.

An epoch-sized `CosineAnnealingLR(T_max=epochs)` stepped once per batch goes down
to its minimum and back up again and again within the run; a cosine sized in
iterations ends at its minimum once. Both `run` and `lint` judge it, and `run`
reports it once.
"""

from __future__ import annotations

import pytest

SLICED = """
import torch
from torch import nn

torch.manual_seed(0)
X, Y = torch.randn(512, 20), torch.randint(0, 4, (512,))
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4))
epochs, batch_size = 10, 32
batches_per_epoch = len(X) // batch_size
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=T_MAX)

for epoch in range(epochs):
    perm = torch.randperm(len(X))
    for i in range(0, len(X), batch_size):
        idx = perm[i:i + batch_size]
        loss = nn.functional.cross_entropy(model(X[idx]), Y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        PER_BATCH
    PER_EPOCH
    print(f"epoch {epoch} loss {loss.item():.3f} lr {scheduler.get_last_lr()[0]:.4f}")
"""


def program(t_max: str, per_batch: bool) -> str:
    return (SLICED.replace("T_MAX", t_max)
            .replace("PER_BATCH", "scheduler.step()" if per_batch else "pass")
            .replace("PER_EPOCH", "pass" if per_batch else "scheduler.step()"))


def test_an_epoch_sized_cosine_stepped_per_batch_is_found_at_its_step(graddoctor_cli):
    source = program("epochs", per_batch=True)
    ran = graddoctor_cli("run", "train.py", script=source)
    assert ran.returncode == 1
    found = [f for f in ran.report["findings"] if f["code"] == "GD205"]
    line = next(n for n, text in enumerate(source.splitlines(), 1) if text.strip() == "scheduler.step()")
    assert [(f["line"], f.get("source")) for f in found] == [(line, None)]  # once, the run's own
    assert "T_max=10" in found[0]["message"] and "back up 8 times" in found[0]["message"]
    lint = graddoctor_cli("lint", "train.py")
    assert f"train.py:{line}:9: GD205" in lint.stdout


@pytest.mark.parametrize("t_max, per_batch", [("epochs * batches_per_epoch", True), ("epochs", False)],
                         ids=["iteration-sized-per-batch", "epoch-sized-per-epoch"])
def test_a_cosine_stepped_as_sized_is_silent(graddoctor_cli, t_max, per_batch):
    ran = graddoctor_cli("run", "train.py", script=program(t_max, per_batch))
    assert ran.returncode == 0, ran.stdout
    assert "GD205" not in ran.codes()
    assert "GD205" not in graddoctor_cli("lint", "train.py").stdout
