"""FSDP2 (`torch.distributed.fsdp.fully_shard`) on 2 CPU ranks with gloo, under the real torchrun.

fully_shard registers sharded DTensor parameters while forward runs on
unsharded copies: unused parameters must still be named as the user names them
(`model.aux.weight`), and correct sharded training must stay silent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Two ranks (two processes) per test: in one xdist group, so that `make test -n 2` never runs two
# multi-rank jobs at once on 2 cores (4 busy processes, and gloo's timeouts under that load).
pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.xdist_group("ranks")]

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "integrations" / "programs" / "fsdp2_train.py"
BIN = Path(sys.executable).parent


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.read_text().splitlines(), 1) if line.strip() == text)


@pytest.mark.parametrize("bug", ["unused", "none"])
def test_fsdp2_unused_parameters_are_named_as_the_user_names_them(tmp_path, bug):
    if shutil.which("graddoctor", path=str(BIN)) is None:
        pytest.skip("the graddoctor console script is not installed next to this Python")
    shutil.copy(PROGRAM, tmp_path / "train.py")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1", NO_COLOR="1",
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", "--no-python",
         "graddoctor", "run", "--json", "report.json", "train.py", bug],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    report = json.loads((tmp_path / "report.json").read_text())
    assert "internal error" not in proc.stdout + proc.stderr
    assert report["status"] == "completed" and report["steps_observed"] == 6
    found = [(f["code"], f["subjects"], f["file"], f["line"]) for f in report["findings"]]
    if bug == "none":
        assert proc.returncode == 0 and found == [], proc.stdout + proc.stderr
    else:
        assert found == [("GD104", ["model.aux.weight", "model.aux.bias"], "train.py", line_of("loss.backward()"))]
