"""The README's "on your own script" steps, run as written from the repository root."""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from graddoctor.extras import install_command

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()

TRAIN = textwrap.dedent("""\
    import sys
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    optimizer = torch.optim.Adam(model.parameters(), lr=float(sys.argv[1]))
    x, y = torch.randn(64, 8), torch.randint(0, 2, (64,))
    for step in range(30):
        loss = nn.functional.cross_entropy(model(x), y)
        loss.item().backward()
        optimizer.step()
""")


def _steps() -> list[str]:
    block = re.search(r"Then, on your own script.*?```\n(.*?)```", README, re.S)
    assert block, "the README lost its 'on your own script' steps"
    return [line.split("#")[0].strip() for line in block.group(1).splitlines() if line.split("#")[0].strip()]


@pytest.mark.slow  # a graddoctor subprocess
def test_the_own_script_steps_diagnose_a_users_script(tmp_path):
    if not (ROOT / ".venv" / "bin" / "activate").exists():
        pytest.skip("no .venv at the repository root (make test creates it)")
    (tmp_path / "train.py").write_text(TRAIN)
    steps = [step.replace("path/to/train.py", f"{tmp_path / 'train.py'} 0.01").replace("path/to/project/", str(tmp_path))
             for step in _steps()]
    assert steps[0] == "source .venv/bin/activate"
    ran = subprocess.run(["bash", "-c", " && ".join(steps[:2]) + "; echo run-exit=$?; " + steps[2]],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "run-exit=1" in ran.stdout, ran.stdout + ran.stderr  # the script's GD101 fails the run
    assert "GD101" in ran.stdout and "train.py:11" in ran.stdout
    assert ran.returncode == 1  # lint finds the same line before anything runs


def test_the_readme_install_command_is_the_one_graddoctor_prints(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert f"`{install_command('fix')}`" in README
