"""The terminal report of a real `graddoctor run`, at a fixed width (COLUMNS=100), as a stored snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

SNAPSHOTS = Path(__file__).parent / "snapshots"

# A small classifier whose gradients are never cleared (GD201): one finding with its
# source line and fix, the counts line, and what the script printed.
SCRIPT = """
import torch
from torch import nn

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.body(x))


model = Classifier()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(12):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
print("done")
"""


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_terminal_report_of_a_real_run_matches_the_snapshot(graddoctor_cli, snapshot):
    ran = graddoctor_cli("run", "train.py", script=SCRIPT)
    assert ran.returncode == 1, ran.stderr
    assert ran.codes() == ["GD201"]
    snapshot(ran.stdout, SNAPSHOTS / "run_missing_zero_grad.txt")


def test_a_missing_snapshot_fails_instead_of_being_written(tmp_path, snapshot, monkeypatch):
    monkeypatch.delenv("GRADDOCTOR_UPDATE_SNAPSHOTS", raising=False)
    missing = tmp_path / "never_written.txt"
    try:
        snapshot("some output\n", missing)
    except AssertionError as exc:
        assert "no snapshot" in str(exc)
    else:
        raise AssertionError("a missing snapshot passed")
    assert not missing.exists()
