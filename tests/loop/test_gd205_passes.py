"""GD205 from the structure of the loop: an epoch scheduler stepped twice within one pass over a DataLoader."""

from __future__ import annotations

import pytest

# The pytorch/examples ImageNet script's shape, small: StepLR(step_size=30, gamma=0.1).
TRAIN = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(20, 32), nn.ReLU())
        self.classifier = nn.Linear(32, 5)

    def forward(self, x):
        return self.classifier(self.features(x))


data = TensorDataset(torch.randn(640, 20), torch.randint(0, 5, (640,)))
train_loader = DataLoader(data, batch_size=16, shuffle=True)
val_loader = DataLoader(data, batch_size=64)
model = Net()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
epochs = 3
scheduler = SCHEDULER


def validate():
    model.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            total += criterion(model(x), y).item()
    model.train()
    return total / len(val_loader)


for epoch in range(epochs):
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        PER_BATCH
    val_loss = validate()
    PER_EPOCH
"""

STEP = "scheduler.step()  # scheduler"
PLATEAU = "scheduler.step(val_loss)  # scheduler"


def program(scheduler: str, per_batch: bool, step: str = STEP) -> str:
    return (TRAIN.replace("SCHEDULER", scheduler)
            .replace("PER_BATCH", step if per_batch else "pass")
            .replace("PER_EPOCH", "pass" if per_batch else step))


def scheduler_line(script: str) -> int:
    return next(i + 1 for i, text in enumerate(script.splitlines()) if text.rstrip().endswith("# scheduler"))


FIRES = {
    "steplr": "torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)",
    "multistep": "torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 20], gamma=0.1)",
    "exponential": "torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)",
    "cosine_epochs": "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)",
}


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
@pytest.mark.parametrize("name", sorted(FIRES))
def test_epoch_scheduler_stepped_per_batch_fires_at_its_second_step(graddoctor_cli, name):
    script = program(FIRES[name], per_batch=True)
    # Three optimizer steps: the scheduler has stepped twice within the first pass, and no more.
    ran = graddoctor_cli("run", "--max-steps", "3", "train.py", script=script)
    f = ran.finding("GD205")
    assert f["line"] == scheduler_line(script)
    assert "within one pass" in f["message"] and "40 batches" in f["message"]


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_plateau_stepped_per_batch_fires(graddoctor_cli):
    script = program("torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=5)", per_batch=True,
                     step="scheduler.step(loss.item())  # scheduler")
    ran = graddoctor_cli("run", "train.py", script=script)
    f = ran.finding("GD205")
    assert f["line"] == scheduler_line(script) and "patience" in f["message"]


NEAR_MISSES = {
    # per-batch schedulers stepped per batch
    "onecycle_batch": ("torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(train_loader))", True, STEP),
    "cyclic_batch": ("torch.optim.lr_scheduler.CyclicLR(optimizer, base_lr=0.01, max_lr=0.1, step_size_up=20)", True, STEP),
    "warmup_lambda_batch": ("torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 50))", True, STEP),
    # a cosine sized in iterations, the way it is meant to be stepped per batch
    "cosine_iterations_batch": ("torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(train_loader))", True, STEP),
    # epoch schedulers stepped per epoch
    "steplr_epoch": ("torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)", False, STEP),
    "exponential_epoch": ("torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.5)", False, STEP),
    "plateau_epoch": ("torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)", False, PLATEAU),
}


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
@pytest.mark.parametrize("name", sorted(NEAR_MISSES))
def test_schedulers_stepped_as_designed_are_silent(graddoctor_cli, name):
    scheduler, per_batch, step = NEAR_MISSES[name]
    ran = graddoctor_cli("run", "train.py", script=program(scheduler, per_batch, step))
    assert ran.report["status"] == "completed", ran.stderr[-2000:]
    assert "GD205" not in ran.codes(), ran.stdout


def test_steplr_per_batch_without_a_dataloader_is_still_judged_by_decay():
    import torch
    from torch import nn

    from graddoctor import watch

    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.1)  # down to 1e-2 after 10 steps
    x = torch.randn(16, 4)
    with watch(model, opt) as w:
        for _ in range(12):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
            sched.step()
    assert "GD205" in w.report().codes  # 0.1 * 0.1 rounds to 0.010000000000000002: still 1%
