"""GradDoctorCallback under the real Lightning Trainer with strategy="ddp", 2 CPU processes, gloo.

Lightning launches the second rank itself (it runs the script again), so each
case is a real script in tests/integrations/programs/lightning_ddp.py, run as
a user runs it; rank 0 writes the merged report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lightning.pytorch")

# Two ranks (two processes) per test: in one xdist group, so that `make test -n 2` never runs two
# multi-rank jobs at once on 2 cores (4 busy processes, and gloo's timeouts under that load).
pytestmark = [pytest.mark.slow, pytest.mark.integration, pytest.mark.xdist_group("ranks")]

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests" / "integrations" / "programs" / "lightning_ddp.py"


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.read_text().splitlines(), 1) if line.strip() == text)


def fit(mode: str, tmp_path: Path) -> dict:
    out = tmp_path / "report.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1", NO_COLOR="1")
    proc = subprocess.run([sys.executable, str(PROGRAM), mode, str(out)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=400)
    assert out.exists(), proc.stdout + proc.stderr
    return json.loads(out.read_text())


def test_unused_head_is_gd401_at_the_training_step(tmp_path):
    report = fit("unused", tmp_path)
    assert report["status"] == "crashed"  # DDP raises "Expected to have finished reduction" on step 2
    assert [f["code"] for f in report["findings"]] == ["GD401"]  # the drift it causes is not a second error
    gd401 = report["findings"][0]
    assert gd401["subjects"] == ["model.aux.weight", "model.aux.bias"]
    assert (Path(gd401["file"]).name, gd401["line"]) == ("lightning_ddp.py", line_of("return loss"))


def test_rank_dependent_edit_is_gd402(tmp_path):
    report = fit("diverge", tmp_path)
    assert report["status"] == "completed"
    assert [f["code"] for f in report["findings"]] == ["GD402"]
    assert report["findings"][0]["subjects"] == ["model.head.bias"]


def test_correct_ddp_training_is_silent(tmp_path):
    report = fit("correct", tmp_path)
    assert report["status"] == "completed" and report["findings"] == []
    assert report["steps_observed"] == 4  # 64 samples, batch 8, split over 2 ranks
