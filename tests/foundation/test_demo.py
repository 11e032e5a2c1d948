"""`graddoctor demo`: the gallery is the installation check, so it must come out right."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graddoctor.demo.programs import gallery

ROOT = Path(__file__).resolve().parents[2]


def test_every_seed_scenario_has_a_program():
    codes = {code for program in gallery() for code in program.codes}
    seeds = {"GD101", "GD102", "GD103", "GD104", "GD105", "GD107", "GD109", "GD110", "GD201", "GD202",
             "GD203", "GD204", "GD205", "GD206", "GD207", "GD301", "GD304", "GD305", "GD306"}
    assert seeds <= codes
    assert "GD106" in codes


def test_list(graddoctor_cli):
    ran = graddoctor_cli("demo", "--list", json_report=False)
    assert ran.returncode == 0
    assert len(ran.stdout.strip().splitlines()) == len(gallery())


@pytest.fixture(scope="module")
def whole_gallery(tmp_path_factory) -> subprocess.CompletedProcess:
    """One `graddoctor demo` run of every program (the slowest thing here), read by several tests."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1", COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "graddoctor", "demo"], cwd=tmp_path_factory.mktemp("demo"),
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.slow
def test_the_whole_gallery_is_diagnosed_as_expected(whole_gallery):
    ran = whole_gallery
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    assert re.search(rf"^{len(gallery())} of {len(gallery())} diagnosed as expected", ran.stdout, re.M)
    # each diagnosis is shown with the user's line
    assert "gd104_unused_branch.py:25:5" in ran.stdout
    # and nothing else: no Python warning (torch's "Failed to initialize NumPy" without numpy)
    assert not re.search(r"\w+Warning: |Failed to initialize NumPy", ran.stdout + ran.stderr), ran.stderr[-2000:]


def test_unknown_program_is_a_usage_error(graddoctor_cli):
    ran = graddoctor_cli("demo", "nope", json_report=False)
    assert ran.returncode == 2 and "no demo program 'nope'" in ran.stderr


@pytest.mark.slow
def test_a_backward_error_shows_the_users_frames_and_the_forward_line(whole_gallery):
    ran = whole_gallery
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    # the user's backward() line, torch's frames folded, and where the failing value was computed
    assert 'File "gd102_argmax_cut.py", line 15, in <module>\n    loss.backward()\n  [' in ran.stdout
    assert "inside libraries]\nRuntimeError: element 0 of tensors" in ran.stdout
    assert "comes from gd102_argmax_cut.py:12 (GD102):\n    predicted = logits.argmax(dim=1)" in ran.stdout
    assert "comes from gd110_no_grad_forward.py:" in ran.stdout
    assert "site-packages" not in ran.stdout and "torch/autograd" not in ran.stdout
