"""The diagnosis the README shows, from the installed `graddoctor` command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parent / "readme_example"


@pytest.mark.slow  # a `graddoctor run` subprocess that trains: ~3 s of CPU
def test_no_grad_inside_another_modules_forward_is_named_with_its_chain(tmp_path):
    for name in ("model.py", "train.py"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    launcher = Path(sys.executable).parent / "graddoctor"
    if not launcher.exists():
        pytest.skip("the graddoctor console script is not installed beside this python")
    proc = subprocess.run(
        [str(launcher), "run", "--json", "report.json", "train.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, COLUMNS="90"),
    )
    assert proc.returncode == 1, proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    [finding] = report["findings"]
    assert (finding["code"], finding["file"], finding["line"]) == ("GD110", "model.py", 21)
    assert finding["subjects"] == ["model.encoder.net.0.weight", "model.encoder.net.0.bias", "model.encoder.net.2.weight",
                                  "model.encoder.net.2.bias"]
    related = [(r["file"], r["line"]) for r in finding["related"]]
    # the line computed without grad, the call chain into the model, the backward line; never the launcher
    assert related == [("model.py", 22), ("train.py", 13), ("train.py", 14)]
    assert "also: model.py:22  computed without gradient recording here" in proc.stdout
