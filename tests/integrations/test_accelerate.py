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


# Accelerate imported from a checkout (PYTHONPATH=src, `pip install -e`) lies outside
# site-packages; its frames are still never the user's line (SPEC section 5).
CLIP_AFTER_STEP = PROGRAM.replace(
    "    optimizer.step()\n",
    "    optimizer.step()\n    accelerator.clip_grad_norm_(model.parameters(), 1.0)\n")


def accelerate_checkout(tmp_path) -> str:
    """A copy of the installed accelerate laid out as a checkout's `src/`, for PYTHONPATH."""
    import accelerate

    src = tmp_path / "accelerate-checkout" / "src"
    shutil.copytree(Path(accelerate.__file__).parent, src / "accelerate", ignore=shutil.ignore_patterns("__pycache__"))
    return str(src)


def run_with_accelerate_from(tmp_path, checkout: bool, *args: str):
    import json

    path = [accelerate_checkout(tmp_path)] if checkout else []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path + [str(ROOT / "src")]), NO_COLOR="1", COLUMNS="100")
    proc = subprocess.run([sys.executable, "-m", "graddoctor", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    report = tmp_path / "report.json"
    return proc, json.loads(report.read_text()) if report.exists() else None


@pytest.mark.parametrize("checkout", [False, True], ids=["site-packages", "checkout"])
def test_clip_after_step_through_accelerator_is_gd206_at_the_users_clip_line(tmp_path, checkout):
    (tmp_path / "train.py").write_text(CLIP_AFTER_STEP)
    proc, report = run_with_accelerate_from(tmp_path, checkout, "run", "--json", "report.json", "train.py", "none")
    assert report is not None, proc.stderr
    clip = next(n for n, line in enumerate(CLIP_AFTER_STEP.splitlines(), 1) if "clip_grad_norm_" in line)
    assert [(f["code"], f["file"], f["line"]) for f in report["findings"]] == [("GD206", "train.py", clip)]
    assert "accelerate" not in "".join(str(r) for f in report["findings"] for r in f["related"])


def test_step_line_under_accelerate_from_a_checkout_is_the_users(tmp_path):
    # GD201 sits at the step event's line, the same place GD402's samples record.
    (tmp_path / "train.py").write_text(PROGRAM)
    proc, report = run_with_accelerate_from(tmp_path, True, "run", "--json", "report.json", "train.py", "no_zero_grad")
    assert report is not None, proc.stderr
    assert found_in(report) == [("GD201", [], "train.py", line_of("optimizer.step()"))]


_LOCATE_STEP = """
import sys
import torch
import accelerate
from accelerate import Accelerator
from graddoctor.locate import user_location

assert "accelerate-checkout" in accelerate.__file__, accelerate.__file__
model = torch.nn.Linear(2, 1)
optimizer = Accelerator(cpu=True).prepare(torch.optim.SGD(model.parameters(), lr=0.1))
seen = []
# Located from the hook's caller (torch's optimizer.py) outwards, as graddoctor's step patch does.
optimizer.optimizer.register_step_pre_hook(lambda *_: seen.append(user_location(sys._getframe(1))))
model(torch.ones(1, 2)).sum().backward()
optimizer.step()  # the user's line
print(seen[0].file, seen[0].line)
"""


def test_located_frame_skips_accelerates_optimizer_py_from_a_checkout(tmp_path):
    (tmp_path / "locate_step.py").write_text(_LOCATE_STEP)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([accelerate_checkout(tmp_path), str(ROOT / "src")]))
    proc = subprocess.run([sys.executable, "locate_step.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    file, line = proc.stdout.split()
    expected = next(n for n, text in enumerate(_LOCATE_STEP.splitlines(), 1) if "# the user's line" in text)
    assert (Path(file).name, int(line)) == ("locate_step.py", expected)


def found_in(report) -> list[tuple]:
    return [(f["code"], f["subjects"], f["file"], f["line"]) for f in report["findings"]]
