"""A replaced model is followed: `model = copy.deepcopy(best_model)` while the optimizer holds the old one (GD106)."""

from __future__ import annotations

import pytest

TRAIN = """
import copy
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.body(x)


x = torch.randn(256, 10)
y = x[:, :1] - 0.5 * x[:, 1:2]
loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.MSELoss()
best_loss, best_model = float("inf"), copy.deepcopy(model)

for epoch in range(6):
    running = 0.0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
        running += loss.item()
    if running < best_loss:
        best_loss, best_model = running, copy.deepcopy(model)
    elif epoch >= 1:
ROLLBACK
"""

FIRES = {
    "deepcopy_rollback": "        model = copy.deepcopy(best_model)  # rebound",
    "recreated": "        model = Net()  # rebound",
}

SILENT = {
    "load_state_dict": "        model.load_state_dict(best_model.state_dict())",
    "new_optimizer": ("        model = copy.deepcopy(best_model)\n"
                      "        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)"),
}


def program(rollback: str, always: bool = True) -> str:
    script = TRAIN.replace("ROLLBACK", rollback)
    # Roll back at epoch 1 whatever the loss did, so every run exercises the rollback.
    return script.replace("if running < best_loss:", "if running < best_loss and epoch != 1:") if always else script


def rebound_line(script: str) -> int:
    return next(i + 1 for i, t in enumerate(script.splitlines()) if t.rstrip().endswith("# rebound"))


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
@pytest.mark.parametrize("name", sorted(FIRES))
def test_replaced_model_is_gd106_at_the_rebinding(graddoctor_cli, name):
    script = program(FIRES[name])
    ran = graddoctor_cli("run", "train.py", script=script)
    f = ran.finding("GD106")
    assert f["line"] == rebound_line(script), f
    assert "`model`" in f["message"] and "load_state_dict" in f["hint"]
    assert f["subjects"] and len(f["subjects"]) % 4 == 0  # one new Net per rollback, 4 parameters each


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
@pytest.mark.parametrize("name", sorted(SILENT))
def test_weights_restored_in_place_or_new_optimizer_is_silent(graddoctor_cli, name):
    ran = graddoctor_cli("run", "train.py", script=program(SILENT[name]))
    assert ran.report["status"] == "completed", ran.stderr[-2000:]
    assert [f["code"] for f in ran.report["findings"] if f["severity"] != "info"] == [], ran.stdout
