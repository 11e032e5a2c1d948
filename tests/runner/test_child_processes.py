"""A script whose training runs in child processes (hogwild, torch.multiprocessing) is not
reported as "No problems found" without saying that no step was seen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HOGWILD = """
    import torch
    import torch.multiprocessing as mp
    from torch import nn
    import torch.nn.functional as F


    def train(rank, model, steps):
        torch.manual_seed(rank)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        x, y = torch.randn(256, 8), torch.randint(0, 3, (256,))
        for i in range(steps):
            opt.zero_grad()
            loss = F.cross_entropy(model(x[i * 32:(i + 1) * 32]), y[i * 32:(i + 1) * 32])
            loss.backward()
            opt.step()


    if __name__ == "__main__":
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
        model.share_memory()  # hogwild: every worker updates the same weights
        workers = []
        for rank in range(2):
            p = mp.Process(target=train, args=(rank, model, 8))
            p.start()
            workers.append(p)
        for p in workers:
            p.join()
        print("trained", all(p.exitcode == 0 for p in workers))
"""

LOADER_WORKERS = """
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset
    import torch.nn.functional as F

    if __name__ == "__main__":
        data = TensorDataset(torch.randn(128, 8), torch.randint(0, 3, (128,)))
        loader = DataLoader(data, batch_size=32, num_workers=2)
        model = nn.Linear(8, 3)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        print("trained")
"""


def _run(tmp_path: Path, source: str) -> tuple[subprocess.CompletedProcess, dict]:
    (tmp_path / "train.py").write_text(textwrap.dedent(source))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1", COLUMNS="200")
    ran = subprocess.run([sys.executable, "-m", "graddoctor", "run", "--json", "report.json", "train.py"],
                         cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    return ran, json.loads((tmp_path / "report.json").read_text())


def test_hogwild_training_in_child_processes_is_said_to_be_unobserved(tmp_path):
    ran, report = _run(tmp_path, HOGWILD)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "trained True" in ran.stdout
    assert report["steps_observed"] == 0
    out = " ".join(ran.stdout.split())
    assert "No optimizer step ran in this process, and the script started 2 processes (train.py:25)" in out


def test_dataloader_workers_are_not_training_processes(tmp_path):
    ran, report = _run(tmp_path, LOADER_WORKERS)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert report["steps_observed"] == 4
    assert "started" not in ran.stdout
