"""`graddoctor run` on accelerate's training loop, and under `accelerate launch` with 2 CPU processes.

The same program is also run with accelerate taken out (a plain loop, line for
line the same): graddoctor must find the same bugs, at the same lines.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("accelerate")

pytestmark = [pytest.mark.slow, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = (ROOT / "tests" / "integrations" / "programs" / "accelerate_loop.py").read_text()
BIN = Path(sys.executable).parent

# Accelerate out, every line kept in place.
PLAIN = (PROGRAM.replace("from accelerate import Accelerator", "Accelerator = None")
         .replace("accelerator = Accelerator(cpu=True)", "accelerator = None")
         .replace("model, optimizer, loader = accelerator.prepare(model, optimizer, loader)", "pass")
         .replace("accelerator.backward(loss)", "loss.backward()"))


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if line.strip() == text)


def found(ran) -> list[tuple]:
    return [(f["code"], f["subjects"], f["file"], f["line"]) for f in ran.report["findings"]]


@pytest.mark.parametrize("bug, expected", [
    ("unused", [("GD104", ["model.aux.weight", "model.aux.bias"], "train.py", line_of("accelerator.backward(loss)"))]),
    ("no_zero_grad", [("GD201", [], "train.py", line_of("optimizer.step()"))]),
    ("none", []),
])
def test_accelerate_loop_gives_the_plain_loops_findings(graddoctor_cli, bug, expected):
    accelerated = graddoctor_cli("run", "train.py", bug, script=PROGRAM, timeout=300)
    assert accelerated.report["status"] == "completed", accelerated.stdout + accelerated.stderr
    assert accelerated.report["steps_observed"] == 12
    assert found(accelerated) == expected
    plain = graddoctor_cli("run", "train.py", bug, script=PLAIN, timeout=300)
    assert found(plain) == expected


@pytest.mark.parametrize("bug", ["unused", "none"])
def test_accelerate_launch_two_processes_prints_one_merged_report(tmp_path, bug):
    if shutil.which("accelerate", path=str(BIN)) is None or shutil.which("graddoctor", path=str(BIN)) is None:
        pytest.skip("the accelerate and graddoctor console scripts are not installed next to this Python")
    (tmp_path / "train.py").write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), OMP_NUM_THREADS="1", NO_COLOR="1", COLUMNS="100",
               PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    # On a machine without GPUs, --multi_gpu is how accelerate starts torchrun with N CPU processes
    # (gloo); plain --num_processes 2 there runs a single process.
    proc = subprocess.run(
        [str(BIN / "accelerate"), "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1",
         "--mixed_precision", "no", "--dynamo_backend", "no", "--main_process_port", "0",
         "--no_python", "graddoctor", "run", "train.py", bug],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400)
    out = proc.stdout
    assert out.count("graddoctor run train.py") == 1, out + proc.stderr  # one report, from rank 0
    if bug == "none":
        assert proc.returncode == 0, out + proc.stderr
        assert "No problems found" in out
    else:
        # Without find_unused_parameters, DDP fails on the second step; GD401 says why, at the user's line.
        assert proc.returncode != 0
        assert f"error GD401 ddp-unused-parameters  train.py:{line_of('accelerator.backward(loss)')}:5" in out
        assert "model.aux.weight and model.aux.bias" in out
